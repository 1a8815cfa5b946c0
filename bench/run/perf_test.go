package run

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
	"github.com/kafka-bench/kafka_bench_exporter/probes/promsink"
)

// BenchmarkProduce runs one unlimited-rate scenario per iteration against
// the brokers in KAFKA_BENCH_BROKERS (a real cluster: see
// scripts/bench-vs-kafka.sh), for profiling the producer path:
//
//	KAFKA_BENCH_BROKERS=127.0.0.1:9092 go test ./bench -run '^$' -bench Produce -benchtime 3x -cpuprofile cpu.out
//
// KAFKA_BENCH_SIZE (default 100) and KAFKA_BENCH_ACKS (default 1) pick
// the record size and acks.
func BenchmarkProduce(b *testing.B) {
	brokers := os.Getenv("KAFKA_BENCH_BROKERS")
	if brokers == "" {
		b.Skip("set KAFKA_BENCH_BROKERS to a real cluster")
	}
	size, acks := envOr("KAFKA_BENCH_SIZE", "100"), envOr("KAFKA_BENCH_ACKS", "1")
	file := fmt.Sprintf(`
num_records: 1000000
defaults:
  record_size: %s
  create_topic: {partitions: 9, replication_factor: 1}
  producer: {acks: %q}
  consumer: {enabled: %t}
`, size, acks, os.Getenv("KAFKA_BENCH_CONSUME") == "1")
	bn, err := spec.Parse([]byte(file))
	if err != nil {
		b.Fatal(err)
	}
	bn.Kafka.Kafka.Brokers = strings.Split(brokers, ",")
	var rps float64
	for i := 0; i < b.N; i++ {
		reg := prometheus.NewRegistry()
		r := &Runner{Sinks: []event.Sink{promsink.NewMetrics(reg)}, SweepID: fmt.Sprint(time.Now().UnixNano())}
		results, err := r.Run(context.Background(), bn)
		if err != nil || results[0].Failed() {
			b.Fatalf("run: %v %s", err, results[0].Err)
		}
		rps += results[0].Produce.RecordsPerSec()
	}
	b.ReportMetric(rps/float64(b.N), "records/s")
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}
