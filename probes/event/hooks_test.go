package event_test

import (
	"testing"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
)

// produced hears of acknowledged records only.
type produced struct{ n, bytes int }

func (p *produced) OnProduced(e event.Produced) { p.n++; p.bytes += e.Bytes }

// both hears of acknowledged and failed records.
type both struct {
	produced
	failed int
}

func (b *both) OnFailed(_ string, n int) { b.failed += n }

// Each event reaches the hooks that implement its interface, and no other;
// a nil hook is skipped.
func TestHooksReachImplementers(t *testing.T) {
	p, b := &produced{}, &both{}
	hs := event.New(p, nil, b, struct{}{})
	hs.Produced(event.Produced{Bytes: 10})
	hs.Failed(event.ReasonTimeout, 3)
	hs.Consumed(event.Consumed{}) // nobody's
	if p.n != 1 || p.bytes != 10 || b.n != 1 || b.failed != 3 {
		t.Errorf("produced %+v, both %+v; want one record of 10 bytes each and 3 failures for both", p, b)
	}
	if hs.WantsFetched() {
		t.Error("WantsFetched without a FetchedHook")
	}
}

// The hot path's events cost no allocation, whatever the hooks.
func TestHooksAllocateNothingPerEvent(t *testing.T) {
	p, b := &produced{}, &both{}
	hs := event.New(p, b)
	now := time.Now()
	allocs := testing.AllocsPerRun(1000, func() {
		hs.Sent(time.Millisecond)
		hs.Produced(event.Produced{Now: now, Latency: time.Millisecond, Bytes: 100, ID: event.RecordID{Run: 1, Partition: 2, Seq: 3}})
		hs.Consumed(event.Consumed{Now: now, EndToEnd: time.Millisecond, Bytes: 100, Own: true})
		hs.Polled(1)
		hs.Anomaly(event.Duplicated, 1)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per round of events, want 0", allocs)
	}
}
