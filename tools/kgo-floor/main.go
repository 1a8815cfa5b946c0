// Command kgo-floor is the floor the load generator is measured against: a
// minimal franz-go producer or consumer that does nothing but produce or
// consume, with the settings of a bench scenario and no header, histogram,
// tracking or metrics. cmd/bench-floor runs it beside `kafka_bench_exporter
// bench` and compares their CPU per record.
//
//	kgo-floor produce -brokers 127.0.0.1:9092 -topic t -records 500000 -rate 50000 -size 1024 -acks 1 -partitions 6 -round 90
//	kgo-floor consume -brokers 127.0.0.1:9092 -topic t -group g -records 500000
//	kgo-floor share -brokers 127.0.0.1:9092 -topic t -group g -records 500000 -members 3
//
// The producer sends records round-robin over the partitions, round records
// per wake-up at the rate (0: as fast as it can), each a fresh window of a
// buffer of random letters copied into a buffer that an acknowledged record
// gave back (-alloc: a fresh allocation per record), and prints
// "acked N failed M in D, R records/s" at the end, timed from the first
// record to the last acknowledgement (the first metadata fetch included),
// recovering as ours does (kclient.ProbingOpts); the consumer reads the
// topic from its start in a group until it has read records, and prints
// "consumed N". The share
// consumer is members clients of a share group (whose share.auto.offset.reset
// the caller sets) that poll until they have read records together, each
// poll's records accepted by the client at the next poll, as Kafka's share
// consumer does by default; it prints "consumed N in D, R records/s", timed
// from before the clients' creation, the share group's start included, and
// "from the first record D, R records/s", timed from the first poll that
// returned records (the group's start left out).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/kclient"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("kgo-floor: ")
	if len(os.Args) < 2 || (os.Args[1] != "produce" && os.Args[1] != "consume" && os.Args[1] != "share") {
		log.Fatal("usage: kgo-floor produce|consume|share [flags]")
	}
	mode := os.Args[1]
	fs := flag.NewFlagSet(mode, flag.ExitOnError)
	brokers := fs.String("brokers", "127.0.0.1:9092", "seed brokers, comma-separated")
	topic := fs.String("topic", "", "topic")
	records := fs.Int64("records", 1000000, "records to produce or consume")
	rate := fs.Float64("rate", 0, "records/s (produce; 0: as fast as possible)")
	round := fs.Int64("round", 1, "records per wake-up at a fixed rate (produce)")
	size := fs.Int("size", 1024, "record value size in bytes (produce)")
	acks := fs.String("acks", "all", "0, 1 or all (produce)")
	linger := fs.Duration("linger", 5*time.Millisecond, "linger (produce)")
	batch := fs.Int("batch", 16384, "batch size in bytes (produce)")
	buffer := fs.Int("buffer", 32<<20, "buffered bytes (produce)")
	partitions := fs.Int("partitions", 1, "partitions to write to, round-robin (produce)")
	inFlight := fs.Int("max-in-flight", 5, "produce requests in flight per broker without idempotence, acks 0 and 1 (produce)")
	group := fs.String("group", "", "consumer group (consume) or share group (share)")
	members := fs.Int("members", 1, "members of the share group (share)")
	alloc := fs.Bool("alloc", false, "allocate every record's value instead of reusing acknowledged ones' (produce)")
	profile := fs.String("cpuprofile", "", "write a CPU profile of the run to this file")
	_ = fs.Parse(os.Args[2:])
	if *profile != "" {
		f, err := os.Create(*profile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer func() { _ = f.Close() }()
		defer pprof.StopCPUProfile()
	}
	if *topic == "" {
		log.Fatal("-topic is required")
	}
	seeds := kgo.SeedBrokers(strings.Split(*brokers, ",")...)
	if mode == "consume" || mode == "share" {
		if *group == "" {
			log.Fatal("-group is required")
		}
		if mode == "share" {
			share(seeds, *topic, *group, *records, max(*members, 1))
			return
		}
		consume(seeds, *topic, *group, *records)
		return
	}
	opts := []kgo.Opt{seeds, kgo.DefaultProduceTopic(*topic),
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerLinger(*linger), kgo.ProducerBatchMaxBytes(int32(*batch)),
		kgo.MaxBufferedBytes(*buffer), kgo.MaxBufferedRecords(*buffer / *size + 1),
		kgo.ProducerBatchCompression(kgo.NoCompression())}
	// As ours recovers (kclient.ProbingOpts): with franz-go's default
	// metadata.min.age of 5 s, a partition its broker had not loaded yet
	// (NOT_LEADER_OR_FOLLOWER on a topic just created) held every record of
	// it about 4 s inside the timed run.
	opts = append(opts, kclient.ProbingOpts()...)
	switch *acks {
	case "all", "-1":
		opts = append(opts, kgo.RequiredAcks(kgo.AllISRAcks()))
	case "1":
		opts = append(opts, kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite(), kgo.MaxProduceRequestsInflightPerBroker(*inFlight))
	case "0":
		opts = append(opts, kgo.RequiredAcks(kgo.NoAck()), kgo.DisableIdempotentWrite(), kgo.MaxProduceRequestsInflightPerBroker(*inFlight))
	default:
		log.Fatalf("-acks = %q: want 0, 1 or all", *acks)
	}
	produce(opts, *records, *rate, max(*round, 1), *size, int32(max(*partitions, 1)), *alloc)
}

func produce(opts []kgo.Opt, records int64, rate float64, round int64, size int, partitions int32, alloc bool) {
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		log.Fatal(err)
	}
	defer cl.Close()
	const slack = 1 << 20
	random := make([]byte, size+slack)
	for i := range random {
		random[i] = 'A' + byte(rand.IntN(26))
	}
	var acked, failed atomic.Int64
	var mu sync.Mutex
	var free [][]byte
	promise := func(r *kgo.Record, err error) {
		if !alloc {
			mu.Lock()
			free = append(free, r.Value)
			mu.Unlock()
		}
		if err != nil {
			failed.Add(1)
			return
		}
		acked.Add(1)
	}
	ctx := context.Background()
	start := time.Now()
	var part int32
	for sent := int64(0); sent < records; {
		due := records
		if rate > 0 {
			// Whole rounds due by now; sleep until the next one.
			rounds := int64(time.Since(start).Seconds()*rate) / round
			due = min((rounds+1)*round, records)
			if due <= sent {
				next := start.Add(time.Duration(float64(sent/round*round) / rate * float64(time.Second)))
				time.Sleep(time.Until(next))
				continue
			}
		}
		for ; sent < due; sent++ {
			off := rand.IntN(slack)
			var v []byte
			if !alloc {
				mu.Lock()
				if n := len(free); n > 0 {
					v, free = free[n-1], free[:n-1]
				}
				mu.Unlock()
			}
			if v == nil {
				v = make([]byte, size)
			}
			copy(v, random[off:])
			cl.Produce(ctx, &kgo.Record{Partition: part, Value: v}, promise)
			if part++; part == partitions {
				part = 0
			}
		}
	}
	if err := cl.Flush(ctx); err != nil {
		log.Fatal(err)
	}
	elapsed := time.Since(start)
	fmt.Printf("acked %d failed %d in %s, %.1f records/s\n", acked.Load(), failed.Load(), elapsed, float64(acked.Load())/elapsed.Seconds())
}

func consume(seeds kgo.Opt, topic, group string, records int64) {
	cl, err := kgo.NewClient(seeds, kgo.ConsumeTopics(topic), kgo.ConsumerGroup(group),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		log.Fatal(err)
	}
	defer cl.Close()
	ctx := context.Background()
	var n int64
	for n < records {
		fetches := cl.PollRecords(ctx, 500)
		if err := fetches.Err0(); err != nil {
			log.Fatal(err)
		}
		n += int64(fetches.NumRecords())
	}
	fmt.Printf("consumed %d\n", n)
}

func share(seeds kgo.Opt, topic, group string, records int64, members int) {
	start := time.Now()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var n, first atomic.Int64 // first: ns after start of the first record polled
	var wg sync.WaitGroup
	for range members {
		cl, err := kgo.NewClient(seeds, kgo.ConsumeTopics(topic), kgo.ShareGroup(group))
		if err != nil {
			log.Fatal(err)
		}
		wg.Go(func() {
			defer cl.Close()
			for ctx.Err() == nil {
				fetches := cl.PollRecords(ctx, 500)
				if fetches.IsClientClosed() || ctx.Err() != nil {
					return
				}
				if err := fetches.Err0(); err != nil {
					log.Fatal(err)
				}
				got := int64(fetches.NumRecords())
				if got > 0 {
					first.CompareAndSwap(0, int64(time.Since(start)))
				}
				if n.Add(got) >= records {
					cancel()
				}
			}
		})
	}
	<-ctx.Done()
	elapsed := time.Since(start)
	wg.Wait()
	fmt.Printf("consumed %d in %s, %.1f records/s\n", n.Load(), elapsed, float64(n.Load())/elapsed.Seconds())
	fetch := elapsed - time.Duration(first.Load())
	fmt.Printf("from the first record %s, %.1f records/s\n", fetch, float64(n.Load())/fetch.Seconds())
}
