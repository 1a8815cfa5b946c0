package probes

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testcerts"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
	"github.com/kafka-bench/kafka_bench_exporter/probes/payload"
	"github.com/kafka-bench/kafka_bench_exporter/probes/promsink"
)

// A replica reader restarted for a recreated replica topic while the probe
// runs, and that cannot be built (its CA file is gone), is retried with the
// backoff of the probe's other clients and counted, where it used to stay
// stopped for the rest of the run: once the file is back, the new reader
// reads the new topic.
func TestReplicaReaderRestartIsRetried(t *testing.T) {
	certs, c := testcerts.KfakeTLS(t)
	ca, err := os.ReadFile(certs.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.DialTLSConfig(&tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}),
		kgo.MetadataMinAge(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	adm := kadm.NewClient(cl)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := adm.CreateTopic(ctx, 1, 1, nil, "copy"); err != nil {
		t.Fatal(err)
	}

	cfg, err := config.Parse(fmt.Appendf(nil, `
probes:
  - name: dr
    lag_interval: 100ms
    replica: {kafka: {brokers: [%s]}, topic: copy}
`, c.ListenAddrs()[0]))
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	rk := cfg.Probes[0].Replica.Kafka
	rk.TLS = config.TLS{Enabled: true, CAFile: certs.CAFile}
	replica, err := config.ResolveKafka(rk, "")
	if err != nil {
		t.Fatal(err)
	}
	p := New(cfg.Probes[0], Options{Kafka: config.Cluster{Kafka: cfg.Kafka}, Replica: replica, Sinks: []event.Sink{promsink.NewMetrics(reg)}})
	r := p.replica
	run := r.newRun(p.runID, p.clk)
	r.cur.Store(run)
	stopReader, err := r.startReader(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	watchCtx, stopWatch := context.WithCancel(ctx)
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		r.watch(watchCtx, adm, run, stopReader)
	}()
	defer func() {
		stopWatch()
		<-watched
	}()
	value := func(name string, labels ...string) float64 {
		v, _ := scrape.MustGather(t, reg).Value(name, labels...)
		return v
	}
	eventually := func(what string, cond func() (bool, string)) {
		t.Helper()
		for ctx.Err() == nil {
			if ok, _ := cond(); ok {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		_, state := cond()
		t.Fatalf("timed out waiting for %s (%s)", what, state)
	}
	eventually("a tick of the watcher (it knows the topic id)", func() (bool, string) {
		_, ok := scrape.MustGather(t, reg).Value("kafka_bench_replication_lag_records", "probe", "dr")
		return ok, "no lag series"
	})

	moved := certs.CAFile + ".moved"
	if err := os.Rename(certs.CAFile, moved); err != nil {
		t.Fatal(err)
	}
	if _, err := adm.DeleteTopic(ctx, "copy"); err != nil {
		t.Fatal(err)
	}
	eventually("the copy deleted", func() (bool, string) {
		td, err := adm.ListTopics(ctx, "copy")
		return err == nil && !td.Has("copy"), fmt.Sprint(err)
	})
	if _, err := adm.CreateTopic(ctx, 1, 1, nil, "copy"); err != nil {
		t.Fatal(err)
	}
	failed := func() float64 {
		return value("kafka_bench_probe_client_failed_total", "probe", "dr", "client", "replica", "reason", "config")
	}
	eventually("two failed restarts of the reader", func() (bool, string) {
		return failed() >= 2, fmt.Sprintf("failed restarts %v", failed())
	})
	if err := os.Rename(moved, certs.CAFile); err != nil {
		t.Fatal(err)
	}
	h := payload.Header{RunID: p.runID, Partition: 0, Seq: 0, Intended: p.clk.now().UnixNano()}
	rec := &kgo.Record{Topic: "copy", Partition: 0, Value: header(h, 64)}
	if err := cl.ProduceSync(ctx, rec).FirstErr(); err != nil {
		t.Fatal(err)
	}
	eventually("the restarted reader reads the new copy", func() (bool, string) {
		n := value("kafka_bench_replication_consumed_records_total", "probe", "dr")
		return n >= 1, fmt.Sprintf("read %v, failed restarts %v", n, failed())
	})
}
