package probes_test

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl/plain"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testcerts"
	"github.com/kafka-bench/kafka_bench_exporter/probes"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
	"github.com/kafka-bench/kafka_bench_exporter/probes/promsink"
)

// A group ACL that denies the probe's user: setting the group's start
// offsets is retried with a doubling backoff (not every second), probe_up
// stays 0 and kafka_bench_probe_client_failed_total{client="group",
// reason="auth"} counts the attempts; once the ACL allows the group the
// probe comes up.
func TestDeniedGroupBacksOff(t *testing.T) {
	all := func(r kmsg.ACLResourceType, name string) kfake.ACL {
		return kfake.ACL{Resource: r, Name: name, Pattern: kmsg.ACLResourcePatternTypeLiteral, Operation: kmsg.ACLOperationAll, Allow: true}
	}
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.EnableSASL(), kfake.EnableACLs(),
		kfake.Superuser("PLAIN", "admin", "admin-pw"),
		kfake.User("PLAIN", "probe", "probe-pw", all(kmsg.ACLResourceTypeTopic, "*"), all(kmsg.ACLResourceTypeCluster, "kafka-cluster")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	t.Setenv("KAFKA_BENCH_TEST_PASSWORD", "probe-pw")
	logger, logs := probetest.CaptureLogger()
	x := probetest.StartWith(t, `
kafka:
  sasl: {mechanism: PLAIN, username: probe, password_env: KAFKA_BENCH_TEST_PASSWORD}
probes:
  - name: denied
    rate: 100
    lag_interval: 500ms
`, c.ListenAddrs(), probes.Options{Logger: logger, RetryClients: true})

	failed := func() float64 {
		return probetest.Value(t, x.Gather(t), "kafka_bench_probe_client_failed_total", "probe", "denied", "client", "group", "reason", "auth")
	}
	probetest.Eventually(t, 60*time.Second, "three denied attempts", func() (bool, string) {
		n := failed()
		return n >= 3, fmt.Sprintf("failed attempts = %v", n)
	})
	f := x.Gather(t)
	if up := probetest.Value(t, f, "kafka_bench_probe_up", "probe", "denied"); up != 0 {
		t.Errorf("probe_up = %v while the group is denied", up)
	}
	// The waits double: 1s, 2s, 4s, ... (formerly 1 s each time).
	var waits []string
	for _, m := range regexp.MustCompile(`probe client failed; retrying.*client=group reason=auth failures=\d+ retry_in=(\S+)`).FindAllStringSubmatch(logs.String(), -1) {
		waits = append(waits, m[1])
	}
	if len(waits) < 3 || strings.Join(waits[:3], " ") != "1s 2s 4s" {
		t.Errorf("retry waits = %v, want 1s 2s 4s ...", waits)
	}
	if !strings.Contains(logs.String(), "GROUP_AUTHORIZATION_FAILED") {
		t.Errorf("the log does not say why:\n%s", logs)
	}

	// Allow the group: the probe comes up at its next attempt.
	adm, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.SASL(plain.Auth{User: "admin", Pass: "admin-pw"}.AsMechanism()))
	if err != nil {
		t.Fatal(err)
	}
	defer adm.Close()
	b := kadm.NewACLs().Allow("User:probe").Groups("*").Operations(kadm.OpAll)
	if _, err := kadm.NewClient(adm).CreateACLs(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	x.WaitReady(t, "denied", 60*time.Second)
}

// A client that cannot be built after start (here a TLS setting built in
// code, whose CA file is read at each client build, is missing) is retried with backoff while the probe stays exported with
// probe_up 0 and kafka_bench_probe_client_failed_total{reason="config"};
// Run does not return, and the probe comes up once the file is back.
func TestClientBuildFailureIsRetried(t *testing.T) {
	certs, c := testcerts.KfakeTLS(t)
	cfg := probetest.Config(t, `
probes:
  - name: tls
    rate: 100
    lag_interval: 500ms
`, c.ListenAddrs())
	cfg.Kafka.TLS = config.TLS{Enabled: true, CAFile: certs.CAFile}
	res, err := config.Resolve(cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	moved := certs.CAFile + ".moved"
	if err := os.Rename(certs.CAFile, moved); err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	p := probes.New(cfg.Probes[0], probes.Options{Kafka: res.Kafka, Sinks: []event.Sink{promsink.NewMetrics(reg)}, RetryClients: true})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	defer func() {
		cancel()
		<-done
	}()
	value := func(name string, labels ...string) float64 {
		return probetest.Value(t, probetest.Gather(t, reg), name, labels...)
	}
	probetest.Eventually(t, 30*time.Second, "two failed attempts to build the admin client", func() (bool, string) {
		n := value("kafka_bench_probe_client_failed_total", "probe", "tls", "client", "admin", "reason", "config")
		return n >= 2, fmt.Sprintf("failed attempts = %v", n)
	})
	select {
	case err := <-done:
		t.Fatalf("Run returned: %v", err)
	default:
	}
	if up := value("kafka_bench_probe_up", "probe", "tls"); up != 0 {
		t.Errorf("probe_up = %v while no client can be built", up)
	}
	if err := os.Rename(moved, certs.CAFile); err != nil {
		t.Fatal(err)
	}
	probetest.Eventually(t, 60*time.Second, "probe up once the CA file is back", func() (bool, string) { return p.Ready(), "not up" })
}

// A replica reader that cannot be built (its CA file is gone) is retried
// like the probe's other clients, not returned from Run: the probe stays
// exported, down, with kafka_bench_probe_client_failed_total{client=
// "replica",reason="config"} counting, and comes up, reading its replica,
// once the file is back.
func TestReplicaBuildFailureIsRetried(t *testing.T) {
	// One TLS cluster is both source and target (the identity policy reads
	// the probe topic back); the probe's own clients read a copy of the CA.
	certs, c := testcerts.KfakeTLS(t)
	ca, err := os.ReadFile(certs.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	sourceCA := certs.CAFile + ".source"
	if err := os.WriteFile(sourceCA, ca, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := probetest.Config(t, fmt.Sprintf(`
probes:
  - name: dr
    rate: 100
    lag_interval: 250ms
    replica: {kafka: {brokers: [%s]}, topic_policy: identity}
`, c.ListenAddrs()[0]), c.ListenAddrs())
	cfg.Kafka.TLS = config.TLS{Enabled: true, CAFile: sourceCA}
	cfg.Probes[0].Replica.Kafka.TLS = config.TLS{Enabled: true, CAFile: certs.CAFile}
	res, err := config.Resolve(cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	moved := certs.CAFile + ".moved"
	if err := os.Rename(certs.CAFile, moved); err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	p := probes.New(cfg.Probes[0], probes.Options{Kafka: res.Kafka, Replica: res.Probes[0].Replica, Sinks: []event.Sink{promsink.NewMetrics(reg)}, RetryClients: true})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	var runErr error
	go func() {
		defer close(done)
		runErr = p.Run(ctx)
	}()
	defer func() {
		cancel()
		<-done
	}()
	value := func(name string, labels ...string) (float64, bool) {
		return probetest.Gather(t, reg).Value(name, labels...)
	}
	probetest.Eventually(t, 30*time.Second, "two failed attempts to build the replica reader", func() (bool, string) {
		select {
		case <-done:
			t.Fatalf("Run returned: %v", runErr)
		default:
		}
		n, _ := value("kafka_bench_probe_client_failed_total", "probe", "dr", "client", "replica", "reason", "config")
		return n >= 2, fmt.Sprintf("failed attempts = %v", n)
	})
	if up, _ := value("kafka_bench_probe_up", "probe", "dr"); up != 0 {
		t.Errorf("probe_up = %v while the replica reader cannot be built", up)
	}
	if err := os.Rename(moved, certs.CAFile); err != nil {
		t.Fatal(err)
	}
	probetest.Eventually(t, 60*time.Second, "probe up and its records read from the replica once the CA file is back", func() (bool, string) {
		n, _ := value("kafka_bench_replication_consumed_records_total", "probe", "dr")
		return p.Ready() && n > 0, fmt.Sprintf("ready %v, read from the replica %v", p.Ready(), n)
	})
}
