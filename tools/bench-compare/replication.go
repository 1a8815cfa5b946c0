package main

import (
	"context"
	"fmt"
	"log"
	"path/filepath"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/internal/kafkatest"
	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
	"github.com/kafka-bench/kafka_bench_exporter/probes/pacer"
)

// replication is the replication latency across a real MirrorMaker 2: two
// one-node Kafka clusters (A, B), MirrorMaker 2 in dedicated mode copying the
// probe topic A -> B as A.<topic>, and the exporter with a probe whose
// replica block reads the copy on B. For each rate one row: the replication
// latency percentiles (intended send time on A -> read on B) and, for
// comparison, the source's own end-to-end p99, over a window of steady state.
func replication(ctx context.Context, args []string) error {
	s := newSettings("replication", "replication [flags] [seconds] [rate ...]   (default: 60 s at 200 records/s)")
	out := s.String("out", "", "directory for the binary and the logs (default: a temporary one, removed)")
	if err := s.parse(args); err != nil {
		return err
	}
	secs, rates, err := secondsAndRates(s.fs.Args(), 60, []float64{200})
	if err != nil {
		return err
	}
	work, bin, cleanup, err := exporterIn(ctx, *out, "bench-replication")
	if err != nil {
		return err
	}
	defer cleanup()
	a, err := startBroker(ctx)
	if err != nil {
		return err
	}
	defer a.Close()
	b, err := startBroker(ctx)
	if err != nil {
		return err
	}
	defer b.Close()
	mctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	mm, err := kafkatest.StartMirrorMaker(mctx, kafkatest.MirrorOptions{Source: a.Bootstrap(), Target: b.Bootstrap(),
		SourceAlias: "A", TargetAlias: "B", Topics: "kafka-bench-repl-.*"}, log.Printf)
	if err != nil {
		return err
	}
	defer mm.Close()
	fmt.Println("| rate rec/s | seconds | records read on B | replication p50 ms | p99 ms | p99.9 ms | max ms | source end-to-end p99 ms | lag (records) | lost | duplicated |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|")
	for _, rate := range rates {
		row, err := replicationRow(ctx, bin, work, a.Bootstrap(), b.Bootstrap(), rate, secs)
		if err != nil {
			return err
		}
		fmt.Println(row)
	}
	return nil
}

func replicationRow(ctx context.Context, bin, work string, a, b []string, rate float64, secs time.Duration) (string, error) {
	cfg := filepath.Join(work, "probes.yml")
	if err := writeYAML(cfg, configFile{Kafka: kafkaKeys{Brokers: a}, Probes: []any{probeKeys{
		Name: fmt.Sprintf("repl-%g", rate), Rate: rate, LagInterval: "1s",
		CreateTopic: &topicKeys{Partitions: 3, ReplicationFactor: 1},
		Replica:     &replicaKeys{Kafka: kafkaKeys{Brokers: b}, SourceAlias: "A", TargetAlias: "B"},
	}}}); err != nil {
		return "", err
	}
	d, err := startDaemon(ctx, bin, filepath.Join(work, fmt.Sprintf("exporter-%g.log", rate)),
		"--config.file="+cfg, "--no-collector.host", "--log.level=warn")
	if err != nil {
		return "", err
	}
	defer d.stop()
	// MirrorMaker 2 notices the new topic, creates its copy and copies it
	// from the start: wait until the copy is read with less than a second
	// of lag.
	caughtUp := func() bool {
		m, err := d.metrics()
		return err == nil && value(m, "kafka_bench_replication_consumed_records_total") > 0 &&
			value(m, "kafka_bench_replication_lag_records") <= rate
	}
	for i := 0; !caughtUp(); i++ {
		if i == 600 {
			log.Printf("repl %g: the copy is not caught up after 10 minutes; measuring anyway", rate)
			break
		}
		if err := pacer.Sleep(ctx, time.Second); err != nil {
			return "", err
		}
	}
	if err := pacer.Sleep(ctx, 5*time.Second); err != nil {
		return "", err
	}
	before, err := d.metrics()
	if err != nil {
		return "", err
	}
	t0 := time.Now()
	if err := pacer.Sleep(ctx, secs); err != nil {
		return "", err
	}
	after, err := d.metrics()
	if err != nil {
		return "", err
	}
	return replicationTableRow(rate, time.Since(t0).Seconds(), before, after), nil
}

// replicationTableRow is one row from the scrapes before and after the
// window: histogram_quantile of the window's buckets, in ms; max is the
// bound of the bucket holding the slowest record.
func replicationTableRow(rate, el float64, before, after scrape.Families) string {
	repl := windowBuckets(before, after, "kafka_bench_replication_latency_seconds")
	e2e := windowBuckets(before, after, "kafka_bench_end_to_end_latency_seconds")
	ms := func(bs []bucket, q float64) string { return fmt.Sprintf("%.1f", quantile(bs, q)*1000) }
	read := value(after, "kafka_bench_replication_consumed_records_total") - value(before, "kafka_bench_replication_consumed_records_total")
	return fmt.Sprintf("| %g | %.0f | %.0f | %s | %s | %s | ≤ %s | %s | %.0f | %.0f | %.0f |", rate, el, read,
		ms(repl, 0.5), ms(repl, 0.99), ms(repl, 0.999), ms(repl, 1), ms(e2e, 0.99),
		value(after, "kafka_bench_replication_lag_records"), value(after, "kafka_bench_replication_records_lost_total"),
		value(after, "kafka_bench_replication_records_duplicated_total"))
}
