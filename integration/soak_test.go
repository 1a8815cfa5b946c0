package integration

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/internal/exportertest"
	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
)

// soakDefault is the soak of the test suite; scripts/soak.sh sets
// KAFKA_BENCH_SOAK=10m for the long one.
const soakDefault = 2 * time.Minute

// TestSoak runs 10,000 records/s of 1 KiB for KAFKA_BENCH_SOAK (2 minutes by
// default, after a warm-up of a quarter of that) and checks that nothing
// grows: the highest goroutine count, live heap and RSS of the last tenth of
// the run are at most 10 % above those of the second tenth (the second and the
// last minute of a 10-minute soak); that the achieved rate is at least 0.999
// of the target; and that nothing was lost. The live heap is read as the GC's
// heap goal (go_memstats_next_gc_bytes: twice the heap live after the last
// collection); heap in use, a sawtooth between collections, is logged too.
func TestSoak(t *testing.T) {
	d := soakDefault
	if s := os.Getenv("KAFKA_BENCH_SOAK"); s != "" {
		var err error
		if d, err = time.ParseDuration(s); err != nil || d < time.Minute {
			t.Fatalf("KAFKA_BENCH_SOAK = %q: want a duration of at least 1m", s)
		}
	}
	c := cluster(t, 1)
	ensureRunning(t, c)
	const probe, rate = "soak", 10000.0
	x := exportertest.Start(t, `
probes:
  - name: soak
    rate: 10000
    record_size: 1024
    create_topic: {partitions: 3, replication_factor: 1}
`, c.Bootstrap())
	x.WaitReady(t, 60*time.Second)
	waitSteady(t, x, probe, rate)

	// A fresh broker starts slowly: the producer's buffer fills, then the
	// backlog drains and its memory is released. The run's first quarter
	// is a warm-up that is not compared (a soak runs for a time; this is
	// not a wait for a condition).
	time.Sleep(d / 4)
	// Twenty-four samples per tenth of the run.
	gauges := []string{"go_goroutines", "go_memstats_next_gc_bytes", "process_resident_memory_bytes", "go_memstats_heap_inuse_bytes"}
	const flat = 3 // the first three gauges must be flat
	step := d / 240
	var samples [240][4]float64
	first, t0 := x.Scrape(t), time.Now()
	next := t0
	for i := range samples {
		next = next.Add(step)
		time.Sleep(time.Until(next))
		f := x.Scrape(t)
		for j, g := range gauges {
			samples[i][j] = mustValue(t, f, g)
		}
	}
	last, t1 := x.Scrape(t), time.Now()

	achieved := (mustValue(t, last, "kafka_bench_produced_records_total", "probe", probe) -
		mustValue(t, first, "kafka_bench_produced_records_total", "probe", probe)) / t1.Sub(t0).Seconds()
	cpu := (mustValue(t, last, "process_cpu_seconds_total") - mustValue(t, first, "process_cpu_seconds_total")) / t1.Sub(t0).Seconds()
	t.Logf("soak %v at %.0f records/s: achieved %.1f records/s (%.5f of target), CPU %.3f cores (test process)", d, rate, achieved, achieved/rate, cpu)
	if achieved/rate < 0.999 {
		t.Errorf("achieved %.1f records/s, want >= 0.999 of %.0f", achieved, rate)
	}
	for j, g := range gauges {
		early, late := 0.0, 0.0
		for i := 24; i < 48; i++ {
			early = max(early, samples[i][j])
		}
		for i := 216; i < 240; i++ {
			late = max(late, samples[i][j])
		}
		t.Logf("%s: highest of the second tenth %.0f, of the last tenth %.0f (%+.1f %%)", g, early, late, 100*(late-early)/early)
		// Growth is what a soak looks for; a fall is memory of the start-up
		// backlog still being returned, logged above.
		if j < flat && late > 1.1*early {
			t.Errorf("%s grew: %.0f in the last tenth of the run against %.0f in the second", g, late, early)
		}
	}
	f := drain(t, x, probe)
	assertCounters(t, f, probe, clean)
	if failed := mustValue(t, f, "kafka_bench_produce_failed_total", "probe", probe); failed != 0 {
		t.Errorf("%v records failed", failed)
	}
}

// mustValue reads one series; a missing series fails the test.
func mustValue(t *testing.T, f scrape.Families, name string, labels ...string) float64 {
	t.Helper()
	v, ok := f.Value(name, labels...)
	if !ok {
		t.Fatalf("no series %s%v in the scrape", name, fmt.Sprint(labels))
	}
	return v
}
