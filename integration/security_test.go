package integration

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/internal/exportertest"
	"github.com/kafka-bench/kafka_bench_exporter/internal/kafkatest"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

// secure is the SASL_SSL cluster shared by the security tests: one node,
// client certificates required (mTLS), user alice.
var secure struct {
	once sync.Once
	c    *kafkatest.Cluster
	err  error
}

const (
	secureUser     = "alice"
	securePassword = "alice-pw-4711"
)

func secureCluster(t *testing.T) *kafkatest.Cluster {
	t.Helper()
	kafkatest.Integration(t)
	secure.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		secure.c, secure.err = kafkatest.StartCluster(ctx, kafkatest.Options{SASLSSL: &kafkatest.SASLSSL{
			Users:      map[string]string{secureUser: securePassword},
			ClientAuth: true,
		}}, t.Logf)
		if secure.err == nil {
			clusters.mu.Lock()
			clusters.extra = append(clusters.extra, secure.c)
			clusters.mu.Unlock()
		}
	})
	if secure.err != nil {
		t.Fatalf("starting the SASL_SSL cluster: %v", secure.err)
	}
	return secure.c
}

// kafkaSection is the kafka: section for the secure cluster with the given
// sasl keys.
func kafkaSection(c *kafkatest.Cluster, sasl string) string {
	certs := c.Certs()
	return fmt.Sprintf(`kafka:
  brokers: [%s]
  tls: {enabled: true, ca_file: %s, cert_file: %s, key_file: %s}
  sasl: {%s}
`, strings.Join(c.SecureBootstrap(), ", "), certs.CAFile, certs.ClientCertFile, certs.ClientKeyFile, sasl)
}

// The probe runs over SASL_SSL with mTLS, with SCRAM-SHA-512 (users made
// at format time, password from a file) and PLAIN (JAAS, password from the
// environment): records flow, nothing is lost and nothing fails.
func TestSecuritySASLSSL(t *testing.T) {
	parallel(t) // waits more than it computes; see waiting in main_test.go
	c := secureCluster(t)
	pwFile := filepath.Join(t.TempDir(), "password")
	if err := os.WriteFile(pwFile, []byte(securePassword+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Not t.Setenv, which a parallel test cannot use: no other test reads
	// this variable.
	if err := os.Setenv("KAFKA_BENCH_IT_PASSWORD", securePassword); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Unsetenv("KAFKA_BENCH_IT_PASSWORD") })
	for _, tc := range []struct{ probe, sasl string }{
		{"scram512", "mechanism: SCRAM-SHA-512, username: alice, password_file: " + pwFile},
		{"plain", "mechanism: PLAIN, username: alice, password_env: KAFKA_BENCH_IT_PASSWORD"},
	} {
		t.Run(tc.probe, func(t *testing.T) {
			x := exportertest.Start(t, kafkaSection(c, tc.sasl)+fmt.Sprintf(`
probes:
  - name: %s
    rate: 500
    record_size: 512
    lag_interval: 1s
    create_topic: {partitions: 3, replication_factor: 1}
`, tc.probe), c.SecureBootstrap())
			x.WaitReady(t, 60*time.Second)
			probetest.Eventually(t, 60*time.Second, "1000 records produced", func() (bool, string) {
				p := value(t, x.Scrape(t), "kafka_bench_produced_records_total", tc.probe)
				return p >= 1000, fmt.Sprintf("produced %v", p)
			})
			f := drain(t, x, tc.probe)
			assertCounters(t, f, tc.probe, clean)
			assertCounters(t, f, tc.probe, map[string]float64{"kafka_bench_produce_failed_total": 0})
			p, cons := value(t, f, "kafka_bench_produced_records_total", tc.probe), value(t, f, "kafka_bench_consumed_records_total", tc.probe)
			if p < 1000 || p != cons {
				t.Errorf("produced %v, consumed %v: want equal and at least 1000", p, cons)
			}
		})
	}
}

// A wrong password, on the real binary: an error in the log (once, not a
// flood, never the password), failures counted with reason auth, probe_up
// 0, no crash; then the password file is fixed, SIGHUP reloads, and the
// probe recovers in the same process.
func TestSecurityWrongPasswordThenReload(t *testing.T) {
	parallel(t) // waits more than it computes; see waiting in main_test.go
	c := secureCluster(t)
	const wrong = "wrong-pw-0815"
	pwFile := filepath.Join(t.TempDir(), "password")
	if err := os.WriteFile(pwFile, []byte(wrong), 0o600); err != nil {
		t.Fatal(err)
	}
	url, proc, logs := startBinary(t, kafkaSection(c, "mechanism: SCRAM-SHA-512, username: alice, password_file: "+pwFile)+`
probes:
  - name: badpw
    rate: 100
    record_size: 200
    lag_interval: 1s
    create_topic: {partitions: 3, replication_factor: 1}
`)
	client := http.Client{Timeout: 2 * time.Second}
	probetest.Eventually(t, 60*time.Second, "failures counted with reason auth", func() (bool, string) {
		f, err := scrapeWith(&client, url+"/metrics")
		if err != nil {
			return false, err.Error()
		}
		auth, _ := f.Value("kafka_bench_produce_failed_total", "probe", "badpw", "reason", "auth")
		return auth > 0, fmt.Sprintf("failures by reason: %v", failuresByReason(f, "badpw"))
	})
	time.Sleep(10 * time.Second) // retries go on: the log must not flood, the process must not exit
	f, err := scrapeWith(&client, url+"/metrics")
	if err != nil {
		t.Fatalf("/metrics during the auth failure: %v", err)
	}
	byReason := failuresByReason(f, "badpw")
	if len(byReason) != 1 || byReason["auth"] == 0 {
		t.Errorf("failures by reason = %v, want only auth", byReason)
	}
	if up := value(t, f, "kafka_bench_probe_up", "badpw"); up != 0 {
		t.Errorf("probe_up = %v while authentication fails", up)
	}
	log := logs.String()
	authLines := 0
	for l := range strings.SplitSeq(log, "\n") {
		if strings.Contains(l, "authentication failed") {
			authLines++
			if !strings.Contains(l, "level=ERROR") || !strings.Contains(l, "SASL_AUTHENTICATION_FAILED") {
				t.Errorf("auth log line is not an ERROR naming SASL_AUTHENTICATION_FAILED: %s", l)
			}
		}
	}
	if authLines < 1 || authLines > 2 {
		t.Errorf("%d log lines about the failed authentication in ~15 s, want 1 or 2 (rate-limited)", authLines)
	}
	if n := strings.Count(log, "unable to initialize sasl"); n > 3 {
		t.Errorf("franz-go's SASL error logged %d times in ~15 s: not rate-limited", n)
	}
	if strings.Contains(log, wrong) {
		t.Error("the log shows the password")
	}
	if err := proc.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("the exporter exited: %v", err)
	}

	// Fix the password and reload without a restart.
	if err := os.WriteFile(pwFile, []byte(securePassword), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := proc.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	probetest.Eventually(t, 60*time.Second, "the probe up after the reload with the right password", func() (bool, string) {
		f, err := scrapeWith(&client, url+"/metrics")
		if err != nil {
			return false, err.Error()
		}
		// Between the old probe's stop and the new one's start the
		// reload leaves the probe without series for a moment.
		up, ok := f.Value("kafka_bench_probe_up", "probe", "badpw")
		if !ok {
			return false, "no kafka_bench_probe_up series yet (the reload restarts the probe)"
		}
		produced := value(t, f, "kafka_bench_produced_records_total", "badpw")
		return up == 1 && produced > 0, fmt.Sprintf("probe_up=%v produced=%v", up, produced)
	})
	if strings.Contains(logs.String(), securePassword) {
		t.Error("the log shows the password")
	}
}
