package run

import (
	"fmt"
	"sync"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/bench/lines"
	"github.com/kafka-bench/kafka_bench_exporter/bench/result"
	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
)

// progress prints, every interval, ProducerPerformance's window line and
// where the bench stands ("scenario i of n") with an estimate of the end.
type progress struct {
	out      *lines.Writer // nil: no progress lines; its Err is the first failed write, later lines are skipped
	interval time.Duration
	total    int
	finished []time.Duration // run time of each finished scenario
}

// watch prints progress for scenario i until the returned stop is called.
func (pg *progress) watch(i int, s spec.Scenario, b *spec.Bench, rec *Recorder) (stop func()) {
	start := time.Now()
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(pg.interval)
		defer t.Stop()
		last := start
		for {
			select {
			case <-quit:
				return
			case now := <-t.C:
				pg.report(i, s, b, rec, now.Sub(start), now.Sub(last))
				last = now
			}
		}
	})
	return func() {
		close(quit)
		wg.Wait()
		pg.finished = append(pg.finished, time.Since(start))
	}
}

func (pg *progress) report(i int, s spec.Scenario, b *spec.Bench, rec *Recorder, elapsed, window time.Duration) {
	if pg.out == nil {
		return
	}
	pw, cw := rec.ProduceWindow(), rec.ConsumeWindow()
	switch {
	case pw.Records > 0:
		pg.out.Printf("%s\n", windowLine(pw, window, "sent"))
	case cw.Records > 0:
		pg.out.Printf("%s\n", windowLine(cw, window, "consumed"))
	}
	f := fraction(b, rec, elapsed)
	line := fmt.Sprintf("scenario %d of %d (%s): %.0f%%", i+1, pg.total, s.DisplayName(), 100*f)
	if eta, ok := estimate(elapsed, f, pg.finished, pg.total-i-1); ok {
		line += ", ETA " + eta.Round(time.Second).String()
	}
	pg.out.Printf("%s\n", line)
}

// windowLine is ProducerPerformance's progress line (for the consumer, with
// "consumed" and end-to-end latency).
func windowLine(w Window, elapsed time.Duration, verb string) string {
	return fmt.Sprintf("%d records %s, %.1f records/sec (%.2f MB/sec), %.1f ms avg latency, %.1f ms max latency.",
		w.Records, verb, result.PerSec(float64(w.Records), elapsed), result.PerSec(float64(w.Bytes)/result.MiB, elapsed), result.Millis(w.AvgLatency), result.Millis(w.MaxLatency))
}

// fraction is how far the current scenario is, from 0 to 1.
func fraction(b *spec.Bench, rec *Recorder, elapsed time.Duration) float64 {
	if b.Duration > 0 {
		return min(elapsed.Seconds()/b.Duration.Seconds(), 1)
	}
	done := rec.Acked()
	if b.ConsumeOnly {
		done = rec.ConsumedTotal()
	}
	return min(float64(done)/float64(b.WarmupRecords+b.NumRecords), 1)
}

// estimate is the time left in the bench: the rest of this scenario at its
// pace so far, then each scenario left as long as the finished ones took on
// average (or as this one will, before any finished).
func estimate(elapsed time.Duration, fraction float64, finished []time.Duration, left int) (time.Duration, bool) {
	if fraction <= 0 {
		return 0, false
	}
	whole := time.Duration(float64(elapsed) / fraction)
	per := whole
	if len(finished) > 0 {
		var sum time.Duration
		for _, d := range finished {
			sum += d
		}
		per = sum / time.Duration(len(finished))
	}
	return max(whole-elapsed, 0) + per*time.Duration(left), true
}
