package probes_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kafka-bench/kafka_bench_exporter/internal/testcerts"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

// The probe reaches a cluster over TLS (and mTLS) with each SASL mechanism;
// kfake checks the credentials and the client certificate.
func TestProbeOverTLSAndSASL(t *testing.T) {
	certs, err := testcerts.Generate(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		mechanism string
		mtls      bool
	}{
		{"PLAIN", false},
		{"SCRAM-SHA-256", false},
		{"SCRAM-SHA-512", true},
	} {
		t.Run(tc.mechanism, func(t *testing.T) {
			const password = "s3cret-pw"
			c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.EnableSASL(),
				kfake.Superuser(tc.mechanism, "alice", password), kfake.TLS(certs.ServerTLS(tc.mtls)))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(c.Close) // after the exporter's cleanup: probes stop first
			clientCert := ""
			if tc.mtls {
				clientCert = fmt.Sprintf(", cert_file: %s, key_file: %s", certs.ClientCertFile, certs.ClientKeyFile)
			}
			t.Setenv("KAFKA_BENCH_TEST_PASSWORD", password)
			x := probetest.Start(t, fmt.Sprintf(`
kafka:
  tls: {enabled: true, ca_file: %s%s}
  sasl: {mechanism: %s, username: alice, password_env: KAFKA_BENCH_TEST_PASSWORD}
probes:
  - name: secure
    rate: 200
    lag_interval: 500ms
`, certs.CAFile, clientCert, tc.mechanism), c.ListenAddrs())
			probetest.Eventually(t, 30*time.Second, "records produced and consumed", func() (bool, string) {
				f := x.Gather(t)
				p := probetest.Value(t, f, "kafka_bench_produced_records_total", "probe", "secure")
				c := probetest.Value(t, f, "kafka_bench_consumed_records_total", "probe", "secure")
				return p > 0 && c > 0, fmt.Sprintf("produced=%v consumed=%v", p, c)
			})
		})
	}
}

// A broker certificate the probe cannot verify is an authentication
// failure: counted with reason auth, logged as an error, and the exporter
// keeps running and retrying.
func TestUntrustedBrokerIsAuthFailure(t *testing.T) {
	c := untrustedTLSCluster(t)
	logger, logs := probetest.CaptureLogger()
	// No ca_file: the system roots do not know the test CA.
	x := probetest.StartLogged(t, `
kafka:
  tls: {enabled: true}
probes:
  - name: untrusted
    rate: 100
    lag_interval: 500ms
`, c.ListenAddrs(), logger)
	probetest.Eventually(t, 30*time.Second, "failures with reason auth", func() (bool, string) {
		f := x.Gather(t)
		auth := probetest.Value(t, f, "kafka_bench_produce_failed_total", "probe", "untrusted", "reason", "auth")
		all := probetest.Value(t, f, "kafka_bench_produce_failed_total", "probe", "untrusted")
		return auth > 0 && auth == all, fmt.Sprintf("auth=%v all=%v", auth, all)
	})
	if got := logs.String(); !strings.Contains(got, "level=ERROR") || !strings.Contains(got, "authentication failed") {
		t.Errorf("no ERROR line about the failed authentication:\n%s", got)
	}
	if !x.Running(t, "untrusted") {
		t.Error("the probe stopped")
	}
}

// untrustedTLSCluster is a one-broker kfake cluster serving TLS with a
// certificate of a test CA that no probe is told about.
func untrustedTLSCluster(t *testing.T) *kfake.Cluster {
	t.Helper()
	_, c := testcerts.KfakeTLS(t)
	return c
}
