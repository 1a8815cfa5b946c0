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
// grows: the highest goroutine count, live heap and RSS of the last tenth
// of the run are at most 10 % above those of the second tenth (the second
// and the last minute of a 10-minute soak); that the achieved rate is at
// least 0.999 of the target; and that nothing was lost. The live heap is
// read as the GC's heap goal (go_memstats_next_gc_bytes: twice the heap live
// after the last collection); heap in use, a sawtooth between collections,
// is logged too.
//
// A broker that a loaded machine starves stops acknowledging for a while;
// the producer buffers up to buffer.memory meanwhile, and the heap, RSS and
// the client's goroutines follow it for tens of seconds after the backlog is
// gone. Growth is what does not go away: when the last tenth is above the
// bound, sampling goes on (up to half the run more) until the latest
// tenth-long window is within it. A leak never is.
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
	const tenth = 24
	step := d / (10 * tenth)
	var samples [][4]float64
	sample := func(next time.Time) time.Time {
		next = next.Add(step)
		time.Sleep(time.Until(next))
		f := x.Scrape(t)
		var s [4]float64
		for j, g := range gauges {
			s[j] = mustValue(t, f, g)
		}
		samples = append(samples, s)
		return next
	}
	// highest is the highest value of gauge j in samples [from, from+tenth).
	highest := func(j, from int) float64 {
		h := 0.0
		for _, s := range samples[from : from+tenth] {
			h = max(h, s[j])
		}
		return h
	}
	first, t0 := x.Scrape(t), time.Now()
	next := t0
	for range 10 * tenth {
		next = sample(next)
	}
	grown := func() bool {
		for j := range flat {
			if highest(j, len(samples)-tenth) > 1.1*highest(j, tenth) {
				return true
			}
		}
		return false
	}
	for extra := d / 2; grown() && time.Since(t0) < d+extra; {
		next = sample(next)
	}
	last, t1 := x.Scrape(t), time.Now()

	achieved := (mustValue(t, last, "kafka_bench_produced_records_total", "probe", probe) -
		mustValue(t, first, "kafka_bench_produced_records_total", "probe", probe)) / t1.Sub(t0).Seconds()
	cpu := (mustValue(t, last, "process_cpu_seconds_total") - mustValue(t, first, "process_cpu_seconds_total")) / t1.Sub(t0).Seconds()
	t.Logf("soak %v at %.0f records/s: achieved %.1f records/s (%.5f of target), CPU %.3f cores (test process)", d, rate, achieved, achieved/rate, cpu)
	if achieved/rate < 0.999 {
		t.Errorf("achieved %.1f records/s, want >= 0.999 of %.0f", achieved, rate)
	}
	if over := len(samples) - 10*tenth; over > 0 {
		t.Logf("sampled %v more until the last window was within 10 %% of the second tenth, or the deadline", time.Duration(over)*step)
	}
	for j, g := range gauges {
		early, late := highest(j, tenth), highest(j, len(samples)-tenth)
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
