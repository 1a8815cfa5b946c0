package probes

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
	"github.com/kafka-bench/kafka_bench_exporter/probes/payload"
	"github.com/kafka-bench/kafka_bench_exporter/probes/promsink"
)

// newIdleProbe is a probe that is never run: its consumer's record path
// can be fed directly. Its metrics are on reg.
func newIdleProbe(t testing.TB) (p *Probe, reg *prometheus.Registry) {
	t.Helper()
	cfg := config.NewProbe("fuzz")
	cfg.Resolve()
	reg = prometheus.NewRegistry()
	return New(cfg, Options{Sinks: []event.Sink{promsink.NewMetrics(reg)}}), reg
}

func fetchOf(recs ...*kgo.Record) kgo.Fetches {
	var parts []kgo.FetchPartition
	for _, r := range recs {
		parts = append(parts, kgo.FetchPartition{Partition: r.Partition, Records: []*kgo.Record{r}})
	}
	return kgo.Fetches{{Topics: []kgo.FetchTopic{{Topic: "t", Partitions: parts}}}}
}

// header encodes a probe record value (header plus padding).
func header(h payload.Header, size int) []byte {
	b := make([]byte, max(size, payload.HeaderSize))
	payload.Encode(b, h)
	return b
}

// FuzzConsumerRecord feeds arbitrary record values (and well-formed headers
// with arbitrary partitions and sequence numbers, of this run or another)
// through the consumer's record handling: nothing may panic, every record
// is counted as consumed, and exactly the values that are not a probe
// header of their own partition are counted as foreign.
func FuzzConsumerRecord(f *testing.F) {
	valid := header(payload.Header{RunID: 7, Partition: 0, Seq: 0, Intended: 1}, 64)
	f.Add([]byte(nil), int32(0), uint64(0), true)
	f.Add([]byte("hello"), int32(1), uint64(1), false)
	f.Add(valid, int32(0), uint64(0), true)
	f.Add(valid[:payload.HeaderSize-1], int32(0), uint64(5), true)
	f.Add(valid, int32(3), uint64(1<<63), false)
	f.Add(valid, int32(-1), ^uint64(0), true)
	f.Fuzz(func(t *testing.T, value []byte, partition int32, seq uint64, own bool) {
		p, reg := newIdleProbe(t)
		c := &consumer{runDeps: p.runDeps}
		now := time.Now()
		run := p.runID + 1
		if own {
			run = p.runID
		}
		raw := &kgo.Record{Partition: partition, Value: value}
		probe := &kgo.Record{Partition: partition, Value: header(payload.Header{RunID: run, Partition: partition, Seq: seq, Intended: now.Add(-time.Millisecond).UnixNano()}, 40)}
		c.process(fetchOf(raw, probe), now)
		c.process(fetchOf(probe), now) // a duplicate
		p.ev.Anomaly(event.Lost, p.tracker.Expire(now.Add(time.Hour)))

		wantForeign := 0.0
		if h, err := payload.Decode(value); err != nil || h.Partition != partition {
			wantForeign = 1
		}
		f := scrape.MustGather(t, reg)
		if got := mustValue(t, f, "kafka_bench_consumed_records_total"); got != 3 {
			t.Errorf("consumed = %v, want 3", got)
		}
		if got := mustValue(t, f, "kafka_bench_records_foreign_total"); got != wantForeign {
			t.Errorf("foreign = %v, want %v (value %q, partition %d)", got, wantForeign, value, partition)
		}
	})
}
