package probes

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/kclient"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
	"github.com/kafka-bench/kafka_bench_exporter/probes/payload"
)

// catchUpProbe is a probe (never started) with one catch-up window on a
// kfake cluster, its admin client set, and a producer of records written by
// hand to its topic's partition 0.
func catchUpProbe(t *testing.T, window string) (*Probe, *kgo.Client) {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "kafka-bench-cu"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	cfg, err := config.Parse([]byte(`
kafka: {brokers: ["` + c.ListenAddrs()[0] + `"]}
probes:
  - name: cu
    catch_up:
      - ` + window + `
`))
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	p := New(cfg.Probes[0], Options{Kafka: config.Cluster{Kafka: cfg.Kafka}})
	adminClient, err := p.NewClient(kclient.RoleAdmin, "0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(adminClient.Close)
	p.admin = kadm.NewClient(adminClient)
	producer, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.DefaultProduceTopic(p.cfg.Topic),
		kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(producer.Close)
	return p, producer
}

// writeSeqs writes the records of run with the sequence numbers seqs to
// partition 0, intended at intended.
func writeSeqs(t *testing.T, cl *kgo.Client, run uint64, intended time.Time, seqs ...uint64) {
	t.Helper()
	for _, seq := range seqs {
		v := make([]byte, payload.HeaderSize+10)
		payload.Encode(v, payload.Header{RunID: run, Partition: 0, Seq: seq, Intended: intended.UnixNano()})
		if err := cl.ProduceSync(context.Background(), &kgo.Record{Partition: 0, Value: v}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
}

func seqSpan(lo, hi uint64) []uint64 {
	var s []uint64
	for i := lo; i < hi; i++ {
		s = append(s, i)
	}
	return s
}

// A catch-up read checks every record of the window: of the gap 40…44 of
// this process's run, 42 and 43 were given up on by the producer and 41
// came late (out of order), so 40 and 44 are missing; an earlier process's
// run has a gap too, but what it gave up on is unknown: its records count
// as unchecked, not its gap as missing. A gap a record intended just now
// revealed may still fill (a retry): not counted.
func TestCatchUpReadChecksEveryRecord(t *testing.T) {
	p, producer := catchUpProbe(t, "{from: start, interval: 1h, max_duration: 30s, max_bytes_per_second: 0}")
	const own, earlier = 0xa1, 0xb2
	old := p.clk.now().Add(-time.Hour)
	writeSeqs(t, producer, earlier, old, 0, 1, 5, 6)
	writeSeqs(t, producer, own, old, seqSpan(0, 40)...)
	writeSeqs(t, producer, own, old, seqSpan(45, 100)...)
	writeSeqs(t, producer, own, old, 41, 41)                // late, then once more
	writeSeqs(t, producer, own, p.clk.now(), 100, 102, 103) // a gap too young to count
	p.gone.producing(own)
	p.gone.add(own, 0, 42, 44)

	c := &catchUp{p: p, w: p.cfg.CatchUp[0], now: p.clk.now}
	r := c.read(context.Background())
	if r.end != event.CatchUpEndOffsets {
		t.Fatalf("read ended by %s, want %s", r.end, event.CatchUpEndOffsets)
	}
	if want := int64(4 + 40 + 55 + 2 + 3); r.records != want {
		t.Errorf("read %d records, want %d", r.records, want)
	}
	if r.missing != 2 || r.outOfOrder != 1 || r.duplicated != 1 || r.unchecked != 4 {
		t.Errorf("missing %d, out of order %d, duplicated %d, unchecked %d; want 2, 1, 1, 4", r.missing, r.outOfOrder, r.duplicated, r.unchecked)
	}
	if !r.remoteKnown || r.remote {
		t.Errorf("remote %v (known %v): want a local window, known", r.remote, r.remoteKnown)
	}
	if r.first.Before(r.start) || r.last.Before(r.first) {
		t.Errorf("start %v, first record %v, last %v: out of order", r.start, r.first, r.last)
	}
}

// A read ends at its bounds: max_records, then max_bytes.
func TestCatchUpReadBounds(t *testing.T) {
	for _, c := range []struct {
		window, end string
		records     int64
	}{
		{"{from: start, max_records: 30, max_bytes_per_second: 0}", event.CatchUpEndRecords, 30},
		{"{from: start, max_bytes: 460, max_bytes_per_second: 0}", event.CatchUpEndBytes, 10}, // 46 bytes a record
		{"{from: 1h, max_bytes_per_second: 0}", event.CatchUpEndOffsets, 100},
	} {
		t.Run(c.end, func(t *testing.T) {
			p, producer := catchUpProbe(t, c.window)
			writeSeqs(t, producer, 1, p.clk.now(), seqSpan(0, 100)...)
			cu := &catchUp{p: p, w: p.cfg.CatchUp[0], now: p.clk.now}
			r := cu.read(context.Background())
			if r.end != c.end || r.records != c.records {
				t.Errorf("read %d records, ended by %s; want %d, %s", r.records, r.end, c.records, c.end)
			}
		})
	}
}

// The gone log counts what no range covers, ranges merged or not.
func TestGoneLogUncovered(t *testing.T) {
	g := newGoneLog()
	g.add(1, 0, 10, 20)
	g.add(1, 0, 15, 25) // overlaps the last: merged
	g.add(1, 0, 5, 7)   // before: inserted
	g.add(1, 1, 0, 100) // another partition
	for _, c := range []struct {
		lo, hi, want uint64
	}{{0, 30, 5 + 3 + 5}, {10, 25, 0}, {6, 11, 3}, {25, 26, 1}, {7, 10, 3}} {
		if n, complete := g.uncovered(1, 0, c.lo, c.hi); n != c.want || !complete {
			t.Errorf("uncovered [%d, %d) = %d (complete %v), want %d", c.lo, c.hi, n, complete, c.want)
		}
	}
	if n, _ := g.uncovered(2, 0, 0, 10); n != 10 {
		t.Errorf("another run: uncovered %d, want 10", n)
	}
}

// The pace: the bytes read so far are due at max_bytes_per_second from the
// read's start; a read behind its pace does not wait, nor one without a cap.
func TestCatchUpPaceWait(t *testing.T) {
	start := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		cap   float64
		bytes int64
		after time.Duration
		want  time.Duration
	}{
		{cap: 1 << 20, bytes: 1 << 20, after: 250 * time.Millisecond, want: 750 * time.Millisecond},
		{cap: 1 << 20, bytes: 1 << 19, after: time.Second, want: 0},
		{cap: 0, bytes: 1 << 30, after: 0, want: 0},
	} {
		cu := &catchUp{w: config.CatchUp{MaxBytesPerSecond: c.cap}}
		if got := cu.paceWait(&catchUpResult{start: start, bytes: c.bytes}, start.Add(c.after)); got != c.want {
			t.Errorf("cap %v B/s, %d bytes read %v after the start: wait %v, want %v", c.cap, c.bytes, c.after, got, c.want)
		}
	}
}
