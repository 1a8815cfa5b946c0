package main

import (
	"context"
	"fmt"
	"log"
	"math"
	"path/filepath"
	"strconv"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
	"github.com/kafka-bench/kafka_bench_exporter/probes/pacer"
)

// embedded is the achieved rate against the target on the embedded cluster,
// and the exporter's CPU and RSS meanwhile (the embedded brokers run in the
// same process, so they are included), from two scrapes SECONDS apart.
func embedded(ctx context.Context, args []string) error {
	s := newSettings("embedded", "embedded [flags] [seconds] [rate ...]   (default: 60 s at 1000 and 10000 records/s)")
	out := s.String("out", "", "directory for the binary and the logs (default: a temporary one, removed)")
	if err := s.parse(args); err != nil {
		return err
	}
	secs, rates, err := secondsAndRates(s.fs.Args(), 60, []float64{1000, 10000})
	if err != nil {
		return err
	}
	work, bin, cleanup, err := exporterIn(ctx, *out, "bench-embedded")
	if err != nil {
		return err
	}
	defer cleanup()
	fmt.Println("| target rec/s | seconds | achieved rec/s | achieved / target | consumed rec/s | lost | dup | CPU (cores) | RSS MiB | p99 produce ms |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|")
	for _, rate := range rates {
		row, err := embeddedRow(ctx, bin, filepath.Join(work, fmt.Sprintf("embedded-%g.log", rate)), rate, secs)
		if err != nil {
			return err
		}
		fmt.Println(row)
	}
	return nil
}

func embeddedRow(ctx context.Context, bin, logPath string, rate float64, secs time.Duration) (string, error) {
	d, err := startDaemon(ctx, bin, logPath, "--probe.rate="+strconv.FormatFloat(rate, 'g', -1, 64), "--probe.record-size=1024", "--log.level=warn")
	if err != nil {
		return "", err
	}
	defer d.stop()
	if err := pacer.Sleep(ctx, 5*time.Second); err != nil { // past start-up
		return "", err
	}
	a, err := d.metrics()
	if err != nil {
		return "", err
	}
	t0 := time.Now()
	if err := pacer.Sleep(ctx, secs); err != nil {
		return "", err
	}
	b, err := d.metrics()
	if err != nil {
		return "", err
	}
	el := time.Since(t0).Seconds()
	log.Printf("embedded at %g records/s: %.0f s measured", rate, el)
	return embeddedTableRow(rate, el, a, b), nil
}

// embeddedTableRow is one row from the scrapes before and after a window of
// el seconds. p99 is the upper bound of the classic bucket holding it, over
// every series of the window (one per partition leader).
func embeddedTableRow(rate, el float64, a, b scrape.Families) string {
	delta := func(name string) float64 { return value(b, name) - value(a, name) }
	produced := delta("kafka_bench_produced_records_total")
	p99 := bucketBound(windowBuckets(a, b, "kafka_bench_produce_latency_seconds"), 0.99)
	bound := "+Inf"
	if !math.IsInf(p99, 1) {
		bound = fmt.Sprintf("%.6g", p99*1000) // as awk prints a number
	}
	return fmt.Sprintf("| %g | %.0f | %.1f | %.4f | %.1f | %.0f | %.0f | %.3f | %.0f | ≤ %s |", rate, el,
		produced/el, produced/el/rate, delta("kafka_bench_consumed_records_total")/el,
		value(b, "kafka_bench_records_lost_total"), value(b, "kafka_bench_records_duplicated_total"),
		delta("process_cpu_seconds_total")/el, value(b, "process_resident_memory_bytes")/(1<<20), bound)
}

// secondsAndRates reads the arguments [seconds] [rate ...].
func secondsAndRates(args []string, defSecs int, defRates []float64) (time.Duration, []float64, error) {
	secs := defSecs
	if len(args) > 0 {
		n, err := strconv.Atoi(args[0])
		if err != nil || n <= 0 {
			return 0, nil, fmt.Errorf("seconds: %q is not a whole number > 0", args[0])
		}
		secs, args = n, args[1:]
	}
	rates := defRates
	if len(args) > 0 {
		var err error
		if rates, err = floats("rate", args); err != nil {
			return 0, nil, err
		}
	}
	return time.Duration(secs) * time.Second, rates, nil
}
