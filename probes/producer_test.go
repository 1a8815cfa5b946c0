package probes

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/model"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
	"github.com/kafka-bench/kafka_bench_exporter/probes/pacer"
	"github.com/kafka-bench/kafka_bench_exporter/probes/payload"
	"github.com/kafka-bench/kafka_bench_exporter/probes/promsink"
)

func TestFailureReason(t *testing.T) {
	cases := []struct {
		err  error
		want string
	}{
		{kgo.ErrRecordTimeout, ReasonTimeout},
		{context.DeadlineExceeded, ReasonTimeout},
		{kgo.ErrRecordRetries, ReasonRetriesExhausted},
		{kgo.ErrClientClosed, ReasonClientClosed},
		{kerr.NotLeaderForPartition, ReasonNotLeader},
		{kerr.NotEnoughReplicas, ReasonNotEnoughReplicas},
		{kerr.NotEnoughReplicasAfterAppend, ReasonNotEnoughReplicas},
		{kerr.UnknownTopicOrPartition, ReasonTopicMissing},
		{kerr.UnknownTopicID, ReasonTopicMissing},
		{kerr.TopicAuthorizationFailed, ReasonAuth},
		{kerr.SaslAuthenticationFailed, ReasonAuth},
		{kerr.MessageTooLarge, ReasonMessageTooLarge},
		{fmt.Errorf("wrapped: %w", kerr.NotEnoughReplicas), ReasonNotEnoughReplicas},
		{kerr.CorruptMessage, ReasonOther},
	}
	known := map[string]bool{}
	for _, r := range FailureReasons {
		known[r] = true
	}
	for _, c := range cases {
		got := failureReason(c.err)
		if got != c.want {
			t.Errorf("failureReason(%v) = %q, want %q", c.err, got, c.want)
		}
		if !known[got] {
			t.Errorf("reason %q is not in FailureReasons: its series would not be pre-created", got)
		}
	}
}

func TestRoundSize(t *testing.T) {
	probe := func(rate float64, round time.Duration, recordSize int) config.Probe {
		var p config.Probe
		p.SetDefaults()
		p.Rate, p.RoundInterval, p.RecordSize = rate, model.Duration(round), recordSize
		return p
	}
	ms := time.Millisecond
	cases := []struct {
		p     config.Probe
		parts int32
		want  uint64
	}{
		{probe(0, 200*ms, 1024), 3, 1},        // unlimited: the pacer hands out MaxBatch itself
		{probe(1, 200*ms, 1024), 3, 1},        // below one record per round: a round per record
		{probe(30, 200*ms, 128), 3, 6},        // 200 ms of records
		{probe(30, 100*ms, 128), 3, 3},        //
		{probe(30, 0, 128), 3, 1},             // round_interval 0: one record at a time
		{probe(300, 200*ms, 128), 3, 60},      //
		{probe(1000, 200*ms, 1024), 3, 45},    // one batch.size (15 records of 1 KiB) per partition
		{probe(1000, 200*ms, 1024), 1, 15},    //
		{probe(50, 200*ms, 100000), 3, 3},     // a record larger than batch.size: one per partition
		{probe(1e6, 200*ms, 36), 3, MaxBatch}, // capped at MaxBatch
	}
	for _, c := range cases {
		if got := RoundSize(c.p, c.parts); got != c.want {
			t.Errorf("RoundSize(rate %v, round_interval %v, record_size %d, %d partitions) = %d, want %d",
				c.p.Rate, c.p.RoundInterval, c.p.RecordSize, c.parts, got, c.want)
		}
	}
	if got := roundPeriod(probe(30, 200*ms, 128), 3); got != 200*ms {
		t.Errorf("roundPeriod(30/s, 200ms) = %v, want 200ms", got)
	}
}

// stepClock advances by step at every reading, as if each Produce took that
// long (blocked on a full buffer).
type stepClock struct {
	now  time.Time
	step time.Duration
}

func (c *stepClock) Now() time.Time {
	c.now = c.now.Add(c.step)
	return c.now
}

func (c *stepClock) SleepUntil(context.Context, time.Time) error { return nil }

// TestHandOutReadsTheClockPerRecord: every record of a round gets its own
// hand-off time, so time spent blocked in Produce shows in the send delay of
// the records after it (paced), and in their latency origin (unpaced).
func TestHandOutReadsTheClockPerRecord(t *testing.T) {
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, unlimited := range []bool{false, true} {
		clk := &stepClock{now: start, step: 10 * time.Millisecond}
		rate := 100.0
		if unlimited {
			rate = 0
		}
		pc := pacer.New(clk, start, rate, 5)
		type handed struct{ intended, now time.Time }
		var got []handed
		handOut(clk, pc, 0, 5, unlimited, func(intended, now time.Time) { got = append(got, handed{intended, now}) })
		for i, h := range got {
			wantNow := start.Add(time.Duration(i+1) * 10 * time.Millisecond)
			if !h.now.Equal(wantNow) {
				t.Fatalf("unlimited=%v: record %d handed over at +%v, want +%v (one clock reading per record)", unlimited, i, h.now.Sub(start), wantNow.Sub(start))
			}
			wantIntended := start // the round's intended time
			if unlimited {
				wantIntended = h.now // latency from the hand-off
			}
			if !h.intended.Equal(wantIntended) {
				t.Fatalf("unlimited=%v: record %d intended at +%v, want +%v", unlimited, i, h.intended.Sub(start), wantIntended.Sub(start))
			}
		}
		if len(got) != 5 {
			t.Fatalf("unlimited=%v: %d records handed over, want 5", unlimited, len(got))
		}
	}
}

// A wake-up that hands out records of several rounds (the producer caught
// up after a stall) gives each record its own round's intended time.
func TestHandOutAcrossRounds(t *testing.T) {
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := &stepClock{now: start, step: time.Millisecond}
	pc := pacer.New(clk, start, 100, 5) // a round of 5 every 50 ms
	var got []time.Time
	handOut(clk, pc, 3, 14, false, func(intended, _ time.Time) { got = append(got, intended) })
	if len(got) != 14 {
		t.Fatalf("%d records handed over, want 14", len(got))
	}
	for k, intended := range got {
		i := uint64(3 + k)
		if want := start.Add(time.Duration(i/5) * 50 * time.Millisecond); !intended.Equal(want) {
			t.Errorf("record %d intended at +%v, want +%v (round %d)", i, intended.Sub(start), want.Sub(start), i/5)
		}
		if !intended.Equal(pc.Intended(i)) {
			t.Errorf("record %d intended at +%v, the pacer says +%v", i, intended.Sub(start), pc.Intended(i).Sub(start))
		}
	}
}

// ids is a hook that keeps the ids of the records acknowledged.
type ids struct {
	produced []RecordID
}

func (r *ids) OnProduced(e event.Produced) {
	r.produced = append(r.produced, e.ID)
}

// recordingProducer is a producer without a client of a default probe
// named name on partitions partitions, whose acknowledgements rec records.
func recordingProducer(name string, partitions int32) (*Probe, *producer, *ids) {
	var cfg config.Probe
	cfg.SetDefaults()
	cfg.Name = name
	cfg.Resolve()
	rec := &ids{}
	p := New(cfg, Options{Sinks: []event.Sink{promsink.NewMetrics(prometheus.NewRegistry()), HookSink{rec}}})
	p.partitions.Store(partitions)
	return p, newProducer(p.runDeps, nil, 0), rec
}

// The promise takes a record's header from beside the record, not from its
// value (cold in the cache by the time Kafka answers): a value whose
// header bytes were overwritten after the hand-over is still accounted as
// the record it was made as. A record of another making is decoded.
func TestPromiseReadsHeaderBesideValue(t *testing.T) {
	p, pr, rec := recordingProducer("beside", 2)
	now := p.clk.now()
	for range 3 {
		r := pr.record(now, now)
		clear(r.Value[:payload.HeaderSize])
		pr.promise(r, nil)
	}
	decoded := &kgo.Record{Partition: 1, Value: pr.pool.Get(payload.Header{RunID: 7, Partition: 1, Seq: 9, Intended: now.UnixNano()})}
	pr.promise(decoded, nil)
	want := []RecordID{{Run: p.runID, Partition: 0, Seq: 0}, {Run: p.runID, Partition: 1, Seq: 0}, {Run: p.runID, Partition: 0, Seq: 1}, {Run: 7, Partition: 1, Seq: 9}}
	if fmt.Sprint(rec.produced) != fmt.Sprint(want) {
		t.Errorf("acknowledged %v, want %v", rec.produced, want)
	}
}

// A sent record is reused once its promise has run, and carries nothing of
// its last use: every field franz-go sets on the way (topic, offset,
// attributes, producer id and epoch, leader epoch) starts at zero again,
// and the promise reads the new record's header, not the old one's.
func TestRecordsRecycledWhole(t *testing.T) {
	p, pr, rec := recordingProducer("recycled", 1)
	now := p.clk.now()
	seen := map[*kgo.Record]bool{}
	reused := 0
	const n = 3 * recycleMax // records go back in lists of up to recycleMax
	for i := range n {
		r := pr.record(now, now)
		if seen[r] {
			reused++
		}
		seen[r] = true
		if r.Topic != "" || r.Offset != 0 || r.Attrs != (kgo.RecordAttrs{}) || r.ProducerID != 0 || r.ProducerEpoch != 0 || r.LeaderEpoch != 0 || r.Headers != nil {
			t.Fatalf("record %d starts with %+v left from its last use", i, *r)
		}
		r.Topic, r.Offset, r.ProducerID, r.ProducerEpoch, r.LeaderEpoch = "t", 100+int64(i), 5, 6, 7
		r.Headers = []kgo.RecordHeader{{Key: "k"}}
		pr.promise(r, nil)
	}
	if reused == 0 {
		t.Errorf("none of %d records was reused after its promise", n)
	}
	for i, id := range rec.produced {
		if want := (RecordID{Run: p.runID, Partition: 0, Seq: uint64(i)}); id != want {
			t.Fatalf("acknowledgement %d was %v, want %v", i, id, want)
		}
	}
	if len(rec.produced) != n {
		t.Errorf("%d acknowledgements, want %d", len(rec.produced), n)
	}
}

// countProduced is a produced hook that keeps a count and a latency sum,
// the least a sink does per acknowledgement.
type countProduced struct {
	n   int
	sum time.Duration
}

func (c *countProduced) OnProduced(e event.Produced) { c.n++; c.sum += e.Latency }

// BenchmarkProduceRecord is the probe's own work per produced record, both
// halves without the client: making the record (record) and accounting for
// its acknowledgement (promise). Records are acknowledged inflight records
// after they were made, as a client with batches in flight does, so a
// promise reads what has left the CPU's nearest caches.
func BenchmarkProduceRecord(b *testing.B) {
	const inflight = 4096
	for _, size := range []int{100, 1024} {
		b.Run(fmt.Sprintf("size=%d", size), func(b *testing.B) {
			var cfg config.Probe
			cfg.SetDefaults()
			cfg.Name, cfg.RecordSize, cfg.Rate = "bench", size, 50000
			cfg.Consumer.Enabled = false
			cfg.Resolve()
			p := New(cfg, Options{Sinks: []event.Sink{HookSink{&countProduced{}}}})
			p.partitions.Store(6)
			pr := newProducer(p.runDeps, nil, 0)
			ring := make([]*kgo.Record, inflight)
			var offset int64
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				now := p.clk.now()
				if r := ring[i]; r != nil {
					offset++
					r.Offset = offset
					pr.promise(r, nil)
				}
				ring[i] = pr.record(now, now)
				i = (i + 1) % inflight
			}
		})
	}
}
