// Command kgo-churn is consumer.churn of scripts/bench-rebalance.yml with
// plain franz-go clients, the franz-go half of scripts/bench-rebalance-java.sh
// and the same program as its Java half, internal/kafkatest/java/ChurnE2E.java:
//
//	kgo-churn -brokers 127.0.0.1:9092 -topic t -protocol consumer
//
// It creates a topic (-partitions, RF 3), starts two members of a fresh
// group (-protocol consumer: KIP-848's, with the server's assignor; classic:
// the cooperative-sticky balancer) and waits until they own every partition;
// then it produces -rate records/s of -size bytes (acks=all, linger 5 ms,
// round-robin over the partitions, the record's timestamp set by the
// producer) for -warmup plus -duration. The churn starts with the measured
// duration: a third member joins -interval minus -churn later, leaves -churn
// after it joined, and so on. Every member auto-commits each second, commits
// on revocation, and takes each record's end-to-end latency as now minus the
// record's timestamp; a partition that moves is unowned from its old owner's
// revocation (after the commit) to its new owner's assignment callback.
// After the producer stops it waits (at most 30 s) until every acknowledged
// record was read, then prints one JSON line: over the records of the
// measured duration, the latency's p50, p99 and max in ms of each record's
// first read; the unowned time's median and max, the number of moves and
// every unowned time;
// records produced, lost (acknowledged, never read) and read again
// (duplicates); and the members' assignment changes (callbacks with
// partitions, every member counting its own).
package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"flag"
	"log"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/kclient"
)

// result is the line the Java half prints too.
type result struct {
	Client            string  `json:"client"`
	Protocol          string  `json:"protocol"`
	P50               int64   `json:"e2e_p50_ms"`
	P99               int64   `json:"e2e_p99_ms"`
	Max               int64   `json:"e2e_max_ms"`
	UnownedP50        int64   `json:"unowned_p50_ms"`
	UnownedMax        int64   `json:"unowned_max_ms"`
	Moves             int     `json:"moves"`
	Unowned           []int64 `json:"unowned_ms"`
	Produced          int64   `json:"produced"`
	Acked             int64   `json:"acked"`
	Failed            int64   `json:"failed"`
	Lost              int64   `json:"lost"`
	Duplicates        int64   `json:"duplicates"`
	AssignmentChanges int64   `json:"assignment_changes"`
}

type run struct {
	seeds      []string
	topic      string
	group      string
	protocol   string
	partitions int

	changes, owned, reads atomic.Int64
	mu                    sync.Mutex
	firstRead             map[uint64]int64 // sequence number: latency in ms
	revokedAt             map[int32]time.Time
	gaps                  []int64       // unowned times in ms
	warmSeq               atomic.Uint64 // records from this sequence number on are measured
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("kgo-churn: ")
	brokers := flag.String("brokers", "127.0.0.1:9092", "seed brokers, comma-separated")
	topic := flag.String("topic", "", "topic to create")
	protocol := flag.String("protocol", "consumer", "group protocol: classic or consumer")
	duration := flag.Duration("duration", 30*time.Second, "how long to produce")
	rate := flag.Int("rate", 1000, "records/s")
	size := flag.Int("size", 512, "record value size in bytes")
	partitions := flag.Int("partitions", 6, "partitions of the topic")
	interval := flag.Duration("interval", 10*time.Second, "a churn member joins every interval")
	churn := flag.Duration("churn", 5*time.Second, "and leaves this long after it joined")
	warmup := flag.Duration("warmup", 10*time.Second, "how long to produce before the measured duration, without churn")
	flag.Parse()
	if *topic == "" {
		log.Fatal("-topic is required")
	}
	if *protocol != "classic" && *protocol != "consumer" {
		log.Fatalf("-protocol = %q: want classic or consumer", *protocol)
	}
	switch {
	case *rate < 1:
		log.Fatalf("-rate = %d: want at least 1", *rate)
	case *partitions < 1:
		log.Fatalf("-partitions = %d: want at least 1", *partitions)
	case *churn <= 0 || *churn >= *interval:
		log.Fatalf("-churn = %v: want more than 0 and less than -interval (%v)", *churn, *interval)
	}
	r := &run{seeds: strings.Split(*brokers, ","), topic: *topic, group: *topic + "-group", protocol: *protocol,
		partitions: *partitions, firstRead: map[uint64]int64{}, revokedAt: map[int32]time.Time{}}
	r.warmSeq.Store(math.MaxUint64)
	if err := r.createTopic(); err != nil {
		log.Fatal(err)
	}

	stopAll, stopMembers := context.WithCancel(context.Background())
	stopChurn, stopChurning := context.WithCancel(context.Background())
	var members, churner sync.WaitGroup
	for range 2 {
		members.Go(func() { r.member(stopAll, true) })
	}
	deadline := time.Now().Add(time.Minute)
	for r.owned.Load() != int64(r.partitions) {
		if time.Now().After(deadline) {
			log.Fatalf("the two members own %d of %d partitions after 60 s", r.owned.Load(), r.partitions)
		}
		time.Sleep(50 * time.Millisecond)
	}
	startChurn := func() {
		for {
			select {
			case <-stopChurn.Done():
				return
			case <-time.After(*interval - *churn):
			}
			ctx, cancel := context.WithTimeout(stopChurn, *churn)
			r.member(ctx, false)
			cancel()
		}
	}

	acked, failed, produced := r.produce(*warmup, *duration, *rate, *size, func() { churner.Go(startChurn) })
	stopChurning()
	churner.Wait()
	drain := time.Now().Add(30 * time.Second)
	for r.unread(acked) > 0 && time.Now().Before(drain) {
		time.Sleep(100 * time.Millisecond)
	}
	stopMembers()
	members.Wait()

	r.mu.Lock()
	lat := make([]int64, 0, len(r.firstRead))
	for seq, l := range r.firstRead {
		if seq >= r.warmSeq.Load() {
			lat = append(lat, l)
		}
	}
	read := int64(len(r.firstRead))
	gaps := slices.Clone(r.gaps)
	r.mu.Unlock()
	slices.Sort(lat)
	slices.Sort(gaps)
	res := result{Client: "franz-go", Protocol: r.protocol, P50: quantile(lat, 0.5), P99: quantile(lat, 0.99), Max: -1,
		UnownedP50: quantile(gaps, 0.5), UnownedMax: -1, Moves: len(gaps), Unowned: append([]int64{}, gaps...),
		Produced: produced, Acked: int64(len(acked)), Failed: failed, Lost: int64(r.unread(acked)),
		Duplicates: r.reads.Load() - read, AssignmentChanges: r.changes.Load()}
	if len(lat) > 0 {
		res.Max = lat[len(lat)-1]
	}
	if len(gaps) > 0 {
		res.UnownedMax = gaps[len(gaps)-1]
	}
	if err := json.NewEncoder(os.Stdout).Encode(res); err != nil {
		log.Fatal(err)
	}
}

// quantile is the nearest-rank quantile of the sorted xs.
func quantile(xs []int64, p float64) int64 {
	if len(xs) == 0 {
		return -1
	}
	i := int(math.Ceil(p*float64(len(xs)))) - 1
	return xs[max(0, min(len(xs)-1, i))]
}

func (r *run) createTopic() error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(r.seeds...))
	if err != nil {
		return err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	resp, err := kadm.NewClient(cl).CreateTopic(ctx, int32(r.partitions), 3, nil, r.topic)
	if err == nil {
		err = resp.Err
	}
	return err
}

// unread is how many of the acknowledged sequence numbers were not read.
func (r *run) unread(acked []uint64) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, s := range acked {
		if _, ok := r.firstRead[s]; !ok {
			n++
		}
	}
	return n
}

// produce sends rate records/s for warmup+d, rate/100 every 10 ms, calls
// measured when d begins, and returns the acknowledged sequence numbers, the
// failed count and the sent count.
func (r *run) produce(warmup, d time.Duration, rate, size int, measured func()) (acked []uint64, failed, sent int64) {
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(r.seeds...), kgo.DefaultProduceTopic(r.topic),
		kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.ProducerLinger(5 * time.Millisecond)}, kclient.ProbingOpts()...)...)
	if err != nil {
		log.Fatal(err)
	}
	defer cl.Close()
	value := []byte(strings.Repeat("x", size))
	var mu sync.Mutex
	var nfailed atomic.Int64
	perTick := max(1, rate/100)
	tick := time.Second * time.Duration(perTick) / time.Duration(rate)
	start := time.Now()
	begin := start.Add(warmup)
	for next := start; next.Before(begin.Add(d)); next = next.Add(tick) {
		time.Sleep(time.Until(next))
		if r.warmSeq.Load() == math.MaxUint64 && !next.Before(begin) {
			// the warm-up's moves (the first joins) are not churn's
			r.changes.Store(0)
			r.mu.Lock()
			r.gaps = nil
			r.mu.Unlock()
			r.warmSeq.Store(uint64(sent))
			measured()
		}
		for range perTick {
			seq := uint64(sent)
			sent++
			key := binary.BigEndian.AppendUint64(nil, seq)
			cl.Produce(context.Background(), &kgo.Record{Key: key, Value: value, Partition: int32(seq % uint64(r.partitions))},
				func(_ *kgo.Record, err error) {
					if err != nil {
						nfailed.Add(1)
						return
					}
					mu.Lock()
					acked = append(acked, seq)
					mu.Unlock()
				})
		}
	}
	if err := cl.Flush(context.Background()); err != nil {
		log.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	return acked, nfailed.Load(), sent
}

// member reads the topic in the group until ctx ends, then closes its client
// (which leaves the group). Only the two lasting members count owned.
func (r *run) member(ctx context.Context, lasting bool) {
	// changed counts a callback with partitions and returns them.
	changed := func(sign int64, ps map[string][]int32) []int32 {
		all := ps[r.topic]
		if len(all) == 0 {
			return nil
		}
		r.changes.Add(1)
		if lasting {
			r.owned.Add(sign * int64(len(all)))
		}
		return all
	}
	opts := append([]kgo.Opt{kgo.SeedBrokers(r.seeds...), kgo.ConsumerGroup(r.group), kgo.ConsumeTopics(r.topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.AutoCommitInterval(time.Second),
		kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, ps map[string][]int32) {
			now := time.Now()
			r.mu.Lock()
			defer r.mu.Unlock()
			for _, p := range changed(1, ps) {
				if at, ok := r.revokedAt[p]; ok {
					r.gaps = append(r.gaps, now.Sub(at).Milliseconds())
					delete(r.revokedAt, p)
				}
			}
		}),
		// As the default: commit what was read before giving partitions up.
		kgo.OnPartitionsRevoked(func(ctx context.Context, cl *kgo.Client, ps map[string][]int32) {
			if len(ps[r.topic]) == 0 {
				return
			}
			if err := cl.CommitUncommittedOffsets(ctx); err != nil {
				log.Printf("committing on revocation: %v", err)
			}
			now := time.Now()
			r.mu.Lock()
			defer r.mu.Unlock()
			for _, p := range changed(-1, ps) {
				r.revokedAt[p] = now
			}
		}),
		kgo.OnPartitionsLost(func(_ context.Context, _ *kgo.Client, ps map[string][]int32) { changed(-1, ps) })},
		kclient.ProbingOpts()...)
	if r.protocol == "consumer" {
		opts = append(opts, kgo.ServerSideBalancer(), kgo.Balancers(kgo.StickyBalancer()))
	} else {
		opts = append(opts, kgo.Balancers(kgo.CooperativeStickyBalancer()))
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		log.Fatal(err)
	}
	defer cl.Close() // leaves the group
	for ctx.Err() == nil {
		fs := cl.PollFetches(ctx)
		now := time.Now()
		fs.EachRecord(func(rec *kgo.Record) {
			seq := binary.BigEndian.Uint64(rec.Key)
			r.reads.Add(1)
			r.mu.Lock()
			if _, ok := r.firstRead[seq]; !ok {
				r.firstRead[seq] = now.Sub(rec.Timestamp).Milliseconds()
			}
			r.mu.Unlock()
		})
	}
}
