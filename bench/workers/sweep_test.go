package workers

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kafka-bench/kafka_bench_exporter/bench/run"
	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
	"github.com/kafka-bench/kafka_bench_exporter/probes/promsink"
)

// The runner takes a worker's part through its sweep: the run starts at
// the sweep's start, its result names the worker and is published for the
// merge, which reads it back.
func TestRunnerRunsAWorkersSweep(t *testing.T) {
	b, err := spec.Parse([]byte("num_records: 200\ndefaults: {record_size: 100, create_topic: {partitions: 2}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	b.Kafka.Kafka.Brokers = probetest.Kfake(t, 1)
	start := time.Now().UTC().Truncate(time.Second)
	w := &Worker{Workers: 1, StartAt: start, SweepName: "one", ResultsTopic: DefaultResultsTopic}
	r := &run.Runner{Sinks: []event.Sink{promsink.NewMetrics(prometheus.NewRegistry())}, Logger: slog.New(slog.DiscardHandler), Part: w}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	results, err := r.Run(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 1 || results[0].Failed() || results[0].Worker == nil || results[0].Worker.Workers != 1 ||
		!results[0].Worker.StartAt.Equal(start) || results[0].Consume == nil || results[0].Consume.Records != 200 {
		t.Fatalf("results %+v: want one run of worker 0 of 1 from %s, its 200 records read back", results, start)
	}
	cctx, cancelCollect := context.WithTimeout(ctx, 10*time.Second)
	defer cancelCollect()
	sw, err := CollectSweep(cctx, b.Kafka, DefaultResultsTopic, "one", start, 1)
	if err != nil {
		t.Fatal(err)
	}
	m, err := sw.Merge(1)
	if err != nil || len(m.Results) != 1 || len(m.Missing) != 0 || m.Results[0].Produce.Records != 200 {
		t.Errorf("merge of the published result: %+v (err %v), want its one run of 200 records", m, err)
	}
}
