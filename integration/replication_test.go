package integration

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/alerts"
	"github.com/kafka-bench/kafka_bench_exporter/internal/kafkatest"
	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

// TestReplicationMirrorMaker2 runs the cross-cluster canary across two real
// one-node Kafka clusters and a real MirrorMaker 2 in dedicated mode that
// copies the probe topic from A to B as A.<topic>: steady state, the
// replicator stopped for 20 s and started again, and a link that never
// copies (a second probe whose topic MirrorMaker 2 does not replicate).
func TestReplicationMirrorMaker2(t *testing.T) {
	parallelLong(t) // waits more than it computes; see waiting in main_test.go

	a := cluster(t, 1) // the package's shared cluster is the source
	ensureRunning(t, a)
	b := kafkatest.Start(t, kafkatest.Options{})
	mm := kafkatest.StartMirror(t, kafkatest.MirrorOptions{Source: a.Bootstrap(), Target: b.Bootstrap(), SourceAlias: "A", TargetAlias: "B",
		Topics: "kafka-bench-xrepl"})
	const (
		rate       = 200.0
		neverGrace = 5 * time.Second
	)
	logger, logs := probetest.CaptureLogger()
	run := probetest.StartLogged(t, fmt.Sprintf(`
probes:
  - name: xrepl
    rate: %[2]v
    lag_interval: 1s
    create_topic: {partitions: 3, replication_factor: 1}
    replica: {kafka: {brokers: [%[1]s]}, source_alias: A, target_alias: B}
  - name: xnever
    rate: 50
    lag_interval: 1s
    create_topic: {partitions: 1, replication_factor: 1}
    replica: {kafka: {brokers: [%[1]s]}, source_alias: A, target_alias: B, loss_grace_period: %[3]s}
`, b.Bootstrap()[0], rate, neverGrace), a.Bootstrap(), logger)
	link := []string{"probe", "xrepl", "link", "A->B"}
	never := []string{"probe", "xnever", "link", "A->B"}
	threshold := latencyAlertThreshold(t)
	// produced samples the never-copied probe's acknowledged count over time,
	// to bound what may have been counted lost.
	type sample struct {
		at       time.Time
		produced float64
	}
	var produced []sample
	gather := func() scrape.Families {
		f := run.Gather(t)
		produced = append(produced, sample{time.Now(), probetest.Value(t, f, "kafka_bench_produced_records_total", "probe", "xnever")})
		return f
	}
	v := func(f scrape.Families, name string) float64 { return probetest.Value(t, f, name, link...) }

	// MirrorMaker 2 finds the new topic, creates A.kafka-bench-xrepl and
	// copies from its start; past its start-up the lag settles near 0.
	var s0 scrape.Families
	t.Run("steady state", func(t *testing.T) {
		probetest.Eventually(t, 4*time.Minute, "records read from the replica with the lag near 0", func() (bool, string) {
			s0 = gather()
			// The lag series appears once the reader has read a lag.
			lag, known := s0.Value("kafka_bench_replication_lag_records", link...)
			if !known {
				return false, "no replication lag known yet"
			}
			read := v(s0, "kafka_bench_replication_consumed_records_total")
			return read > 0 && lag <= rate, fmt.Sprintf("read %v, lag %v records", read, lag)
		})
		var s1 scrape.Families
		probetest.Eventually(t, 2*time.Minute, "10 s of records through the link", func() (bool, string) {
			s1 = gather()
			n := v(s1, "kafka_bench_replication_consumed_records_total") - v(s0, "kafka_bench_replication_consumed_records_total")
			return n >= 10*rate, fmt.Sprintf("%v records read", n)
		})
		p50, p99 := quantileBetween(t, s0, s1, 0.5, link), quantileBetween(t, s0, s1, 0.99, link)
		t.Logf("steady state at %v records/s: replication latency p50 %.3fs, p99 %.3fs", rate, p50, p99)
		if math.IsNaN(p99) || p99 <= 0 || p99 >= threshold {
			t.Errorf("steady replication p99 %vs, want in (0, %vs)", p99, threshold)
		}
		if lost := v(s1, "kafka_bench_replication_records_lost_total"); lost != 0 {
			t.Errorf("lost %v records across a healthy link", lost)
		}
		probetest.Eventually(t, time.Minute, "lag near 0", func() (bool, string) {
			lag := v(gather(), "kafka_bench_replication_lag_records")
			return lag <= rate, fmt.Sprintf("%v records", lag)
		})
	})

	t.Run("replicator stopped for 20 s", func(t *testing.T) {
		before := gather()
		if err := mm.Stop(); err != nil {
			t.Fatal(err)
		}
		stopped := time.Now()
		var maxLagRecords, maxLagSeconds float64
		for time.Since(stopped) < 20*time.Second {
			f := gather()
			maxLagRecords = max(maxLagRecords, v(f, "kafka_bench_replication_lag_records"))
			maxLagSeconds = max(maxLagSeconds, v(f, "kafka_bench_replication_lag_seconds"))
			time.Sleep(500 * time.Millisecond)
		}
		if err := mm.Start(); err != nil {
			t.Fatal(err)
		}
		t.Logf("while stopped: lag up to %v records, %.1fs", maxLagRecords, maxLagSeconds)
		// The lag branch of KafkaBenchReplicationLatencyHigh.
		if maxLagSeconds <= threshold {
			t.Errorf("lag reached %.1fs during a 20 s stop: the latency alert (threshold %vs) would not fire", maxLagSeconds, threshold)
		}
		if maxLagRecords < 10*rate {
			t.Errorf("lag reached %v records during a 20 s stop at %v records/s", maxLagRecords, rate)
		}
		var after scrape.Families
		probetest.Eventually(t, 4*time.Minute, "the replica caught up", func() (bool, string) {
			after = gather()
			lag, age := v(after, "kafka_bench_replication_lag_records"), v(after, "kafka_bench_replication_lag_seconds")
			return lag <= rate && age < threshold, fmt.Sprintf("lag %v records, %.1fs", lag, age)
		})
		// The first records sent while it was stopped waited at least 20 s.
		over20 := overBetween(t, before, after, 20, link)
		p99 := quantileBetween(t, before, after, 0.99, link)
		t.Logf("stop and restart: %v records took over 20 s, p99 %.1fs", over20, p99)
		if over20 == 0 {
			t.Error("no record took over 20 s across a link stopped for 20 s")
		}
		// The histogram branch of KafkaBenchReplicationLatencyHigh.
		if p99 <= threshold {
			t.Errorf("p99 %.1fs over the stop: the latency alert (threshold %vs) would not fire", p99, threshold)
		}
		if lost := v(after, "kafka_bench_replication_records_lost_total"); lost != 0 {
			t.Errorf("lost %v records across a link stopped for less than the grace period", lost)
		}
		t.Logf("duplicates after the restart (at least once): %v", v(after, "kafka_bench_replication_records_duplicated_total"))
	})

	t.Run("link that never copies", func(t *testing.T) {
		var lost float64
		probetest.Eventually(t, time.Minute, "loss on the link that never copies", func() (bool, string) {
			f := gather()
			lost = probetest.Value(t, f, "kafka_bench_replication_records_lost_total", never...)
			return lost > 0, fmt.Sprint(lost)
		})
		measured := time.Now()
		// Only acknowledged records past the grace period: at most what
		// was acknowledged grace before the counter was read.
		var bound float64
		for _, s := range produced {
			if !s.at.Before(measured.Add(-neverGrace)) {
				bound = s.produced
				break
			}
		}
		t.Logf("never-copied link: %v lost, at most %v acknowledged %v earlier", lost, bound, neverGrace)
		if lost > bound {
			t.Errorf("lost %v > %v records acknowledged a grace period (%v) before", lost, bound, neverGrace)
		}
		var lines []string
		for l := range strings.SplitSeq(logs.String(), "\n") {
			if strings.Contains(l, "counted lost") {
				lines = append(lines, l)
			}
		}
		if len(lines) != 1 || !strings.Contains(lines[0], "probe=xnever") || !strings.Contains(lines[0], "does not exist on the target cluster") {
			t.Errorf("want one loss line, for xnever, saying the replica topic is missing; got %q", lines)
		}
	})
}

// latencyAlertThreshold is the threshold of KafkaBenchReplicationLatencyHigh
// (both its branches), read from alerts.yml.
func latencyAlertThreshold(t *testing.T) float64 {
	t.Helper()
	rules, err := alerts.Rules()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rules {
		if r.Alert != "KafkaBenchReplicationLatencyHigh" {
			continue
		}
		m := regexp.MustCompile(`> (\d+)`).FindAllStringSubmatch(r.Expr, -1)
		if len(m) != 2 || m[0][1] != m[1][1] {
			t.Fatalf("KafkaBenchReplicationLatencyHigh: want one threshold on both branches in %q", r.Expr)
		}
		th, _ := strconv.ParseFloat(m[0][1], 64)
		return th
	}
	t.Fatal("no alert KafkaBenchReplicationLatencyHigh")
	return 0
}

// bucketsBetween is the increase of each classic bucket of the replication
// latency histogram from a to b, by upper bound, +Inf last.
func bucketsBetween(t *testing.T, a, b scrape.Families, labels []string) (bounds, counts []float64) {
	t.Helper()
	get := func(f scrape.Families) ([]float64, []float64) {
		ms := f.Find("kafka_bench_replication_latency_seconds", labels...)
		if len(ms) != 1 || ms[0].Histogram == nil {
			t.Fatalf("replication latency histogram %v: %d series", labels, len(ms))
		}
		h := ms[0].Histogram
		var ub, c []float64
		for _, bk := range h.GetBucket() {
			ub, c = append(ub, bk.GetUpperBound()), append(c, float64(bk.GetCumulativeCount()))
		}
		return append(ub, math.Inf(1)), append(c, float64(h.GetSampleCount()))
	}
	bounds, cb := get(b)
	_, ca := get(a)
	counts = make([]float64, len(cb))
	for i := range cb {
		counts[i] = cb[i] - ca[i]
	}
	return bounds, counts
}

// quantileBetween is histogram_quantile(q) over the increase from a to b,
// as Prometheus computes it from classic buckets (linear within a bucket).
func quantileBetween(t *testing.T, a, b scrape.Families, q float64, labels []string) float64 {
	t.Helper()
	bounds, counts := bucketsBetween(t, a, b, labels)
	total := counts[len(counts)-1]
	if total == 0 {
		return math.NaN()
	}
	rank := q * total
	for i, c := range counts {
		if c < rank {
			continue
		}
		if math.IsInf(bounds[i], 1) {
			return bounds[i-1]
		}
		lo, below := 0.0, 0.0
		if i > 0 {
			lo, below = bounds[i-1], counts[i-1]
		}
		return lo + (bounds[i]-lo)*(rank-below)/(c-below)
	}
	return bounds[len(bounds)-2]
}

// overBetween counts the observations above bound (a bucket bound) from a to b.
func overBetween(t *testing.T, a, b scrape.Families, bound float64, labels []string) float64 {
	t.Helper()
	bounds, counts := bucketsBetween(t, a, b, labels)
	for i, ub := range bounds {
		if ub == bound {
			return counts[len(counts)-1] - counts[i]
		}
	}
	t.Fatalf("no bucket with upper bound %v", bound)
	return 0
}
