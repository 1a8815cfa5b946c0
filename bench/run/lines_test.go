package run

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/bench/lines"
	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/probes"
)

var errFull = errors.New("no space left on device")

// fullWriter takes ok writes, then fails every one, counting them all.
type fullWriter struct{ ok, writes int }

func (w *fullWriter) Write(p []byte) (int, error) {
	w.writes++
	if w.writes > w.ok {
		return 0, errFull
	}
	return len(p), nil
}

// TestPlanWriteError: a --dry-run plan that could not be written fails,
// whether its header or a scenario's lines were cut short.
func TestPlanWriteError(t *testing.T) {
	b, err := spec.Parse([]byte("num_records: 10\n"))
	if err != nil {
		t.Fatal(err)
	}
	// The header takes three writes ("plan: …", its newline, "round 1: …").
	for _, ok := range []int{0, 3} {
		err := (&Runner{Logger: testLogger()}).Plan(context.Background(), b, &fullWriter{ok: ok})
		if !errors.Is(err, errFull) {
			t.Errorf("after %d writes: Plan = %v, want %v", ok, err, errFull)
		}
	}
}

// TestProgressWriteError: a progress stream that broke keeps its first
// error and is not written to again.
func TestProgressWriteError(t *testing.T) {
	w := &fullWriter{}
	pg := &progress{out: lines.New(w), interval: time.Second, total: 1}
	rec := NewRecorder(0, false, 0)
	rec.Produced(time.Now(), time.Millisecond, 100, probes.RecordID{})
	b := &spec.Bench{NumRecords: 10}
	pg.report(0, spec.Scenario{}, b, rec, time.Second, time.Second)
	pg.report(0, spec.Scenario{}, b, rec, 2*time.Second, time.Second)
	if !errors.Is(pg.out.Err(), errFull) || w.writes != 1 {
		t.Errorf("progress: err %v after %d writes, want %v after 1", pg.out.Err(), w.writes, errFull)
	}
}
