package integration

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kafka-bench/kafka_bench_exporter/bench/run"
	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/bench/workers"
	"github.com/kafka-bench/kafka_bench_exporter/internal/exportertest"
	"github.com/kafka-bench/kafka_bench_exporter/internal/kafkatest"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testcerts"
	"github.com/kafka-bench/kafka_bench_exporter/kclient"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
	"github.com/kafka-bench/kafka_bench_exporter/probes/promsink"
)

const (
	idpClientID     = "kafka-bench"
	idpClientSecret = "idp-secret-7f3a"
	// idpAudience is the audience the test IdP's tokens name and the
	// broker requires.
	idpAudience = "kafka-bench-cluster"
	// tokenLifetime is short, so that the probe outlives several tokens in
	// a short test; the broker enforces re-authentication every 8 s.
	tokenLifetime = 12 * time.Second
)

// One SASL_SSL broker with client certificates required, trusting client
// certificates of two CAs (ca1, ca2), and validating OAUTHBEARER JWTs
// against a test identity provider on loopback:
//
//   - oauthbearer: the probe gets its tokens from the token endpoint (client
//     credentials) and runs for more than two token lifetimes, with
//     re-authentication enforced, without a failed or lost record; the
//     token endpoint goes away, the probe goes down with the token error
//     as its reason, and comes back with the endpoint.
//   - rotation: the client certificate and key files are replaced by a
//     pair of ca2 while the probe runs; a half-written key file first is
//     kept out (old pair still used across a broker restart, counted in
//     the reload metric), then the broker is restarted trusting ca2 only:
//     only the new pair can connect, and the probe flows on with 0 lost.
func TestAuthOAuthBearerAndRotation(t *testing.T) {
	parallelLong(t) // waits more than it computes; see waiting in main_test.go
	kafkatest.Integration(t)
	dir := t.TempDir()
	idp := newTestIdP(t, tokenLifetime, idpAudience, idpClientID, idpClientSecret)
	sets := make([]*testcerts.Set, 2)
	var trust []byte
	for i := range sets {
		d := filepath.Join(dir, fmt.Sprintf("ca%d", i+1))
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		s, err := testcerts.Generate(d)
		if err != nil {
			t.Fatal(err)
		}
		sets[i] = s
		trust = append(trust, readBytes(t, s.CAFile)...)
	}
	trustFile := filepath.Join(dir, "client-cas.pem")
	writeBytes(t, trustFile, trust)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c, err := kafkatest.StartCluster(ctx, kafkatest.Options{SASLSSL: &kafkatest.SASLSSL{
		Users:         map[string]string{secureUser: securePassword},
		ClientAuth:    true,
		ClientCAFile:  trustFile,
		OAuthJWKS:     idp.JWKSURL,
		OAuthIssuer:   idpIssuer,
		OAuthAudience: idpAudience,
		OAuthReauth:   8 * time.Second,
	}}, t.Logf)
	if err != nil {
		t.Fatalf("starting the broker: %v", err)
	}
	t.Cleanup(c.Close)

	// The client's pair lives at fixed paths, replaced in place.
	certFile, keyFile := filepath.Join(dir, "client.pem"), filepath.Join(dir, "client-key.pem")
	writeBytes(t, certFile, readBytes(t, sets[0].ClientCertFile))
	writeBytes(t, keyFile, readBytes(t, sets[0].ClientKeyFile))
	tlsSection := fmt.Sprintf("  brokers: [%s]\n  tls: {enabled: true, ca_file: %s, cert_file: %s, key_file: %s}\n",
		strings.Join(c.SecureBootstrap(), ", "), c.Certs().CAFile, certFile, keyFile)
	probe := func(name string) string {
		return fmt.Sprintf(`
probes:
  - name: %s
    rate: 200
    record_size: 256
    lag_interval: 1s
    create_topic: {partitions: 3, replication_factor: 1}
`, name)
	}

	t.Run("oauthbearer", func(t *testing.T) {
		secretFile := filepath.Join(dir, "client-secret")
		writeBytes(t, secretFile, []byte(idpClientSecret+"\n"))
		logs := &probetest.Logs{}
		var w io.Writer = logs
		if testing.Verbose() {
			w = io.MultiWriter(logs, os.Stderr)
		}
		sasl := fmt.Sprintf("{mechanism: OAUTHBEARER, oauth: {token_endpoint: %q, client_id: %s, client_secret_file: %s, scope: kafka}}",
			idp.TokenURL, idpClientID, secretFile)
		// The probe's replica block reads the probe's own topic on the same
		// cluster with the same identity: its clients, like the
		// configuration watcher's, are clients of the same section.
		replica := fmt.Sprintf("    replica: {kafka: {brokers: [%s], tls: {enabled: true, ca_file: %s, cert_file: %s, key_file: %s}, sasl: %s}, topic_policy: identity}\n",
			strings.Join(c.SecureBootstrap(), ", "), c.Certs().CAFile, certFile, keyFile, sasl)
		x := exportertest.StartLogged(t, "kafka:\n"+tlsSection+"  sasl: "+sasl+"\nconfig_poll_interval: 2s\n"+probe("oauth")+replica,
			c.SecureBootstrap(), slog.New(slog.NewTextHandler(w, nil)))
		x.WaitReady(t, 60*time.Second)
		start := time.Now()
		// More than two token lifetimes, and the tokens really were
		// refreshed (fetched again, not one token for the whole run);
		// the configuration watcher and the replica reader ran meanwhile.
		probetest.Eventually(t, 120*time.Second, "the probe outlives two tokens", func() (bool, string) {
			f := x.Scrape(t)
			fetched, _ := f.Value("kafka_bench_oauth_token_fetches_total")
			read := value(t, f, "kafka_bench_replication_consumed_records_total", "oauth")
			return time.Since(start) > 2*tokenLifetime+2*time.Second && fetched >= 3 && read > 0,
				fmt.Sprintf("%.0fs, %v tokens fetched (issued %d), %v records read from the replica", time.Since(start).Seconds(), fetched, idp.issued.Load(), read)
		})
		// One token source for every client of the section (the probe's,
		// the replica reader's, the configuration watcher's): every token
		// the endpoint issued is one the shared source fetched when the
		// last was due for refresh, not one per client.
		probetest.Eventually(t, 30*time.Second, "every token issued was fetched by the one shared source", func() (bool, string) {
			fetched, _ := x.Scrape(t).Value("kafka_bench_oauth_token_fetches_total")
			issued := idp.issued.Load()
			return float64(issued) == fetched, fmt.Sprintf("token endpoint issued %d tokens, the shared source fetched %v", issued, fetched)
		})
		if polled, _ := x.Scrape(t).Value("kafka_bench_config_poll_success"); polled != 1 {
			t.Errorf("kafka_bench_config_poll_success = %v: the configuration watcher did not authenticate", polled)
		}
		// A bench run of the same section meanwhile, as a worker of a sweep
		// (one worker, started now): its admin, producer, consumer and
		// results-topic clients share one token source of their own.
		benchReg := prometheus.NewRegistry()
		b, err := spec.Parse([]byte("kafka:\n" + tlsSection + "  sasl: " + sasl + `
num_records: 300
defaults: {record_size: 100, create_topic: {partitions: 1, replication_factor: 1}}
`))
		if err == nil {
			err = b.Resolve()
		}
		if err != nil {
			t.Fatal(err)
		}
		r := &run.Runner{Sinks: []event.Sink{promsink.NewMetrics(prometheus.NewRegistry())}, Logger: slog.New(slog.NewTextHandler(w, nil)),
			Credentials: kclient.NewCredentialPool(kclient.NewCredentialMetrics(benchReg), nil),
			Part:        &workers.Worker{Workers: 1, StartAt: time.Now(), SweepName: "oauth", ResultsTopic: workers.DefaultResultsTopic}}
		benchCtx, cancelBench := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancelBench()
		results, err := r.Run(benchCtx, b)
		if err != nil || len(results) != 1 || results[0].Err != "" || results[0].Produce == nil || results[0].Produce.Records != 300 {
			t.Fatalf("bench over OAUTHBEARER: %v %+v", err, results)
		}
		probetest.Eventually(t, 30*time.Second, "every token issued was fetched by the exporter's or the bench's shared source", func() (bool, string) {
			fetched, _ := x.Scrape(t).Value("kafka_bench_oauth_token_fetches_total")
			benchFetched := counterValue(t, benchReg, "kafka_bench_oauth_token_fetches_total")
			issued := idp.issued.Load()
			return benchFetched >= 1 && float64(issued) == fetched+benchFetched,
				fmt.Sprintf("token endpoint issued %d tokens, the exporter's source fetched %v, the bench's %v", issued, fetched, benchFetched)
		})
		f := x.Scrape(t)
		assertCounters(t, f, "oauth", clean)
		assertCounters(t, f, "oauth", map[string]float64{"kafka_bench_produce_failed_total": 0})
		if up := value(t, f, "kafka_bench_probe_up", "oauth"); up != 1 {
			t.Errorf("probe_up = %v with valid tokens", up)
		}

		idp.Down()
		// Down, with the token error as its reason: the probe's auth
		// ERROR line names the endpoint (records in flight fail with
		// reason auth only once their delivery timeout passes).
		probetest.Eventually(t, 90*time.Second, "the probe down once the last token expired", func() (bool, string) {
			f := x.Scrape(t)
			up := value(t, f, "kafka_bench_probe_up", "oauth")
			failed, _ := f.Value("kafka_bench_oauth_token_fetch_failed_total")
			reason := false
			for l := range strings.SplitSeq(logs.String(), "\n") {
				reason = reason || strings.Contains(l, "level=ERROR") && strings.Contains(l, "authentication failed") &&
					strings.Contains(l, "reason=auth") && strings.Contains(l, "OAuth token from "+idp.TokenURL)
			}
			return up == 0 && failed > 0 && reason, fmt.Sprintf("probe_up=%v token fetch failures=%v auth ERROR naming the endpoint logged: %v", up, failed, reason)
		})
		log := logs.String()
		if strings.Contains(log, idpClientSecret) {
			t.Error("the log shows the client secret")
		}

		idp.Up()
		before := value(t, x.Scrape(t), "kafka_bench_produced_records_total", "oauth")
		probetest.Eventually(t, 90*time.Second, "the probe up again with the token endpoint", func() (bool, string) {
			f := x.Scrape(t)
			up, produced := value(t, f, "kafka_bench_probe_up", "oauth"), value(t, f, "kafka_bench_produced_records_total", "oauth")
			return up == 1 && produced > before+200, fmt.Sprintf("probe_up=%v produced=%v (at the return: %v)", up, produced, before)
		})
		// The outage re-delivers what the consumer group had not committed
		// (counted as duplicates); nothing is lost.
		f = drain(t, x, "oauth")
		assertCounters(t, f, "oauth", noLoss)
	})

	t.Run("rotation", func(t *testing.T) {
		pwFile := filepath.Join(dir, "password")
		writeBytes(t, pwFile, []byte(securePassword))
		x := exportertest.Start(t, "kafka:\n"+tlsSection+"  sasl: {mechanism: SCRAM-SHA-512, username: "+secureUser+
			", password_file: "+pwFile+"}\n"+probe("rotate"), c.SecureBootstrap())
		x.WaitReady(t, 60*time.Second)
		produced := func() float64 { return value(t, x.Scrape(t), "kafka_bench_produced_records_total", "rotate") }
		flows := func(what string) {
			t.Helper()
			from := produced()
			probetest.Eventually(t, 90*time.Second, what, func() (bool, string) {
				f := x.Scrape(t)
				up, p := value(t, f, "kafka_bench_probe_up", "rotate"), value(t, f, "kafka_bench_produced_records_total", "rotate")
				return up == 1 && p > from+400, fmt.Sprintf("probe_up=%v produced=%v (from %v)", up, p, from)
			})
		}
		flows("records flow with the ca1 pair")
		reloadFailed := func() float64 {
			v, _ := x.Scrape(t).Value("kafka_bench_credentials_reload_failed_total", "kind", "tls_client_cert")
			return v
		}
		if n := reloadFailed(); n != 0 {
			t.Fatalf("reload failures %v before any rotation", n)
		}

		// Half-written: the new certificate, half of the new key. The
		// running probe keeps its connections; new connections (after a
		// broker restart) still use the old pair, which the broker trusts.
		newKey := readBytes(t, sets[1].ClientKeyFile)
		writeBytes(t, certFile, readBytes(t, sets[1].ClientCertFile))
		writeBytes(t, keyFile, newKey[:len(newKey)/2])
		if err := c.Restart(0); err != nil {
			t.Fatal(err)
		}
		flows("records flow on the old pair after a half-written key")
		if n := reloadFailed(); n < 1 {
			t.Errorf("kafka_bench_credentials_reload_failed_total{kind=tls_client_cert} = %v after a half-written key, want ≥ 1", n)
		}

		// The key completed, then the broker trusts ca2 only: only the
		// new pair can connect now.
		writeBytes(t, keyFile, newKey)
		writeBytes(t, trustFile, readBytes(t, sets[1].CAFile))
		if err := c.Restart(0); err != nil {
			t.Fatal(err)
		}
		flows("records flow on the new pair with only ca2 trusted")
		if err := handshake(c.SecureBootstrap()[0], c.Certs().CAPool, sets[0].Client); err == nil {
			t.Error("the broker still accepts the old pair: the test proves nothing")
		}
		// The restarts re-deliver what the consumer group had not
		// committed (counted as duplicates); nothing is lost.
		f := drain(t, x, "rotate")
		assertCounters(t, f, "rotate", noLoss)
		if v, _ := f.Value("kafka_bench_credentials_last_reload_success_timestamp_seconds", "kind", "tls_client_cert"); v == 0 {
			t.Error("no successful reload of the client certificate recorded")
		}
	})
}

var noLoss = map[string]float64{"kafka_bench_records_lost_total": 0, "kafka_bench_records_foreign_total": 0}

// handshake connects to addr with the client pair and reads: with TLS 1.3
// a refused client certificate shows as an alert after the handshake.
func handshake(addr string, roots *x509.CertPool, pair tls.Certificate) error {
	conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", addr,
		&tls.Config{RootCAs: roots, Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12})
	if err != nil {
		return err
	}
	defer func() { _ = conn.Close() }() // nothing was sent that could be lost
	if err := conn.SetDeadline(time.Now().Add(3 * time.Second)); err != nil {
		return err
	}
	_, err = conn.Read(make([]byte, 1))
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return nil // accepted: the broker waits for a request
	}
	return err
}

func readBytes(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// writeBytes replaces the content of path in place (same file, as an
// editor or a plain copy does), not by rename.
func writeBytes(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// counterValue is the value of the unlabelled counter name in reg.
func counterValue(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name && len(mf.GetMetric()) == 1 {
			return mf.GetMetric()[0].GetCounter().GetValue()
		}
	}
	t.Fatalf("no counter %s", name)
	return 0
}
