package run

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/bench/lines"
	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/probes"
)

func TestWindowLine(t *testing.T) {
	w := Window{Records: 1000, Bytes: 1000 * 1024, AvgLatency: 2500 * time.Microsecond, MaxLatency: 12 * time.Millisecond}
	want := "1000 records sent, 200.0 records/sec (0.20 MB/sec), 2.5 ms avg latency, 12.0 ms max latency."
	if got := windowLine(w, 5*time.Second, "sent"); got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
}

func TestEstimate(t *testing.T) {
	cases := []struct {
		name     string
		elapsed  time.Duration
		fraction float64
		finished []time.Duration
		left     int
		want     time.Duration
		ok       bool
	}{
		{"nothing done yet", 5 * time.Second, 0, nil, 3, 0, false},
		{"first scenario, half done", 10 * time.Second, 0.5, nil, 2, 10*time.Second + 2*20*time.Second, true},
		{"later scenarios use the finished average", 10 * time.Second, 0.5, []time.Duration{30 * time.Second, 50 * time.Second}, 1, 10*time.Second + 40*time.Second, true},
		{"last scenario, done", 20 * time.Second, 1, []time.Duration{time.Minute}, 0, 0, true},
	}
	for _, c := range cases {
		got, ok := estimate(c.elapsed, c.fraction, c.finished, c.left)
		if got != c.want || ok != c.ok {
			t.Errorf("%s: estimate = %v, %v; want %v, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

func TestProgressReport(t *testing.T) {
	var out bytes.Buffer
	pg := &progress{out: lines.New(&out), interval: time.Second, total: 4, finished: []time.Duration{10 * time.Second}}
	b := &spec.Bench{NumRecords: 900, WarmupRecords: 100}
	rec := NewRecorder(100, false, 0)
	for range 250 {
		rec.Produced(time.Now(), time.Millisecond, 100, probes.RecordID{})
	}
	pg.report(1, spec.Scenario{Name: "acks=all"}, b, rec, 5*time.Second, 5*time.Second)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := []string{
		"150 records sent, 30.0 records/sec (0.00 MB/sec), 1.0 ms avg latency, 1.0 ms max latency.",
		"scenario 2 of 4 (acks=all): 25%, ETA 35s", // 15 s left here, then 2 × 10 s
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("progress\n got %q\nwant %q", lines, want)
	}
}
