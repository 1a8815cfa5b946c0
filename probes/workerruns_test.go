package probes_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kafka-bench/kafka_bench_exporter/probes"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

// runs is a hook that keeps the run ids of the records it hears.
type runs struct {
	mu       sync.Mutex
	produced map[uint64]int
	own      map[uint64]int // consumed as the bench's own
	other    int            // consumed as another run's or foreign
}

func (r *runs) OnProduced(e event.Produced) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.produced[e.ID.Run]++
}

func (r *runs) OnConsumed(e event.Consumed) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e.Own {
		r.own[e.ID.Run]++
	} else {
		r.other++
	}
}

func (r *runs) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return fmt.Sprintf("produced %v, consumed own %v, other %d", r.produced, r.own, r.other)
}

// Two workers' probes of a bench run share a topic and a group: each
// produces under the run id it was given, and each consumer counts the
// records of both workers' runs as its own, never as another run's.
func TestWorkerRunsCountAsOwn(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	const cfg = `
probes:
  - name: workers
    topic: workers
    rate: 200
    lag_interval: 500ms
    create_topic: {partitions: 2}
    consumer: {group.id: workers-group}
`
	ids := []uint64{0x51, 0x52}
	recs := []*runs{}
	for i, id := range ids {
		rec := &runs{produced: map[uint64]int{}, own: map[uint64]int{}}
		recs = append(recs, rec)
		probetest.StartWith(t, cfg, c.ListenAddrs(), probes.Options{Logger: probetest.Logger(),
			Sinks: []event.Sink{probes.HookSink{H: rec}}, Bench: probes.BenchOptions{RunID: id, WorkerRuns: []uint64{ids[1-i]}}})
	}
	probetest.Eventually(t, 30*time.Second, "both consumers read both runs' records as their own", func() (bool, string) {
		ok := true
		for i, rec := range recs {
			rec.mu.Lock()
			ok = ok && rec.produced[ids[i]] > 0 && len(rec.produced) == 1 && rec.own[ids[0]] > 0 && rec.own[ids[1]] > 0 && rec.other == 0
			rec.mu.Unlock()
		}
		return ok, fmt.Sprintf("probe 0: %s; probe 1: %s", recs[0], recs[1])
	})
}
