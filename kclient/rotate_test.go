package kclient

import (
	"crypto/tls"
	"crypto/x509"
	"os"
	"path/filepath"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testcerts"
	"github.com/kafka-bench/kafka_bench_exporter/sasl"
)

// resolved is k after the resolve step (files relative to the working
// directory).
func resolved(t *testing.T, k config.Kafka) config.Cluster {
	t.Helper()
	c, err := config.ResolveKafka(k, "")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func write(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The TLS material of each new connection comes from the files as they are
// then: a rotated pair and CA are used, a half-written key or a CA file
// without a certificate keeps the previous material and is counted once.
func TestTLSMaterialRotates(t *testing.T) {
	dir := t.TempDir()
	sets := make([]*testcerts.Set, 2)
	for i := range sets {
		d := filepath.Join(dir, string(rune('a'+i)))
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		s, err := testcerts.Generate(d)
		if err != nil {
			t.Fatal(err)
		}
		sets[i] = s
	}
	ca, cert, key := filepath.Join(dir, "ca.pem"), filepath.Join(dir, "client.pem"), filepath.Join(dir, "client-key.pem")
	write(t, ca, read(t, sets[0].CAFile))
	write(t, cert, read(t, sets[0].ClientCertFile))
	write(t, key, read(t, sets[0].ClientKeyFile))
	k := config.Kafka{Brokers: []string{"127.0.0.1:9093"}, TLS: config.TLS{Enabled: true, CAFile: ca, CertFile: cert, KeyFile: key}}
	reg := prometheus.NewRegistry()
	m := NewCredentialMetrics(reg)
	creds, err := NewCredentials(resolved(t, k), m, nil)
	if err != nil {
		t.Fatal(err)
	}
	leaf := func() *x509.Certificate { return clientLeaf(t, creds) }
	verifies := func(set int) bool {
		_, err := leaf().Verify(x509.VerifyOptions{Roots: sets[set].CAPool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
		return err == nil
	}
	rootsVerify := func(set int) bool {
		_, err := sets[set].Server.Leaf.Verify(x509.VerifyOptions{Roots: creds.tls.config("127.0.0.1").RootCAs})
		return err == nil
	}
	failed := func(kind string) float64 { return metricValue(m.reloadFailed.WithLabelValues(kind)) }
	if c := creds.tls.config("broker-1"); c.ServerName != "broker-1" || c.InsecureSkipVerify {
		t.Errorf("server name %q, insecure %v", c.ServerName, c.InsecureSkipVerify)
	}
	if !verifies(0) || !rootsVerify(0) {
		t.Fatal("the initial pair or CA is not the first set's")
	}

	// Half-written: new certificate, half a key.
	newKey := read(t, sets[1].ClientKeyFile)
	write(t, cert, read(t, sets[1].ClientCertFile))
	write(t, key, newKey[:len(newKey)/2])
	if !verifies(0) {
		t.Error("a half-written key replaced the working pair")
	}
	if n := failed(KindTLSClientCert); n != 1 {
		t.Errorf("reload failures %v after a half-written key, want 1", n)
	}
	leaf()
	if n := failed(KindTLSClientCert); n != 1 {
		t.Errorf("reload failures %v: the same broken version was counted again", n)
	}
	write(t, key, newKey)
	if !verifies(1) {
		t.Error("the complete new pair is not used")
	}

	// A broken CA file keeps the old pool; a new one (replaced by
	// rename, as a Kubernetes secret is) is used.
	write(t, ca, []byte("not a certificate\n"))
	if !rootsVerify(0) || failed(KindTLSCA) != 1 {
		t.Errorf("broken CA file: old pool kept %v, failures %v", rootsVerify(0), failed(KindTLSCA))
	}
	tmp := filepath.Join(dir, "ca.pem.new")
	write(t, tmp, read(t, sets[1].CAFile))
	if err := os.Rename(tmp, ca); err != nil {
		t.Fatal(err)
	}
	if !rootsVerify(1) || rootsVerify(0) {
		t.Error("the renamed-in CA file is not used")
	}
	if v := metricValue(m.reloaded.WithLabelValues(KindTLSCA)); v == 0 {
		t.Error("no reload success timestamp")
	}
}

// A rotated SASL password file is used by the next authentication; an
// emptied one keeps the old password.
func TestPasswordFileRotates(t *testing.T) {
	pw := filepath.Join(t.TempDir(), "pw")
	write(t, pw, []byte("first\n"))
	m, msg := plainFromFile(t, pw)
	if got := msg(); got != "\x00u\x00first" {
		t.Errorf("first message %q", got)
	}
	write(t, pw, []byte("second-longer\n"))
	if got := msg(); got != "\x00u\x00second-longer" {
		t.Errorf("after rotation %q", got)
	}
	write(t, pw, []byte("\n"))
	if got := msg(); got != "\x00u\x00second-longer" || metricValue(m.reloadFailed.WithLabelValues(sasl.KindSASLPassword)) != 1 {
		t.Errorf("emptied file: %q, failures %v", got, metricValue(m.reloadFailed.WithLabelValues(sasl.KindSASLPassword)))
	}
}

// plainFromFile is PLAIN credentials with user u and the password in file
// pw, their metrics, and the first SASL message of a new authentication.
func plainFromFile(t *testing.T, pw string) (*CredentialMetrics, func() string) {
	t.Helper()
	k := config.Kafka{Brokers: []string{"127.0.0.1:9092"}, SASL: config.SASL{Mechanism: sasl.PLAIN, Username: "u", PasswordFile: pw}}
	m := NewCredentialMetrics(prometheus.NewRegistry())
	creds, err := NewCredentials(resolved(t, k), m, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m, func() string {
		t.Helper()
		_, b, err := creds.mech.Authenticate(t.Context(), "127.0.0.1:9092")
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
}

func metricValue(c prometheus.Metric) float64 {
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		panic(err)
	}
	if m.Counter != nil {
		return m.Counter.GetValue()
	}
	return m.Gauge.GetValue()
}

// A rewrite of the same size, in place and within the file system's time
// granularity (same size, inode and modification time) is picked up: the
// version of a file is its contents, not its stat.
func TestSameStatRewriteRotates(t *testing.T) {
	pw := filepath.Join(t.TempDir(), "pw")
	write(t, pw, []byte("first\n"))
	fi, err := os.Stat(pw)
	if err != nil {
		t.Fatal(err)
	}
	_, msg := plainFromFile(t, pw)
	if got := msg(); got != "\x00u\x00first" {
		t.Fatalf("first message %q", got)
	}
	write(t, pw, []byte("other\n"))
	if err := os.Chtimes(pw, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(pw)
	if err != nil {
		t.Fatal(err)
	}
	if after.Size() != fi.Size() || !after.ModTime().Equal(fi.ModTime()) || !os.SameFile(fi, after) {
		t.Fatalf("the rewrite changed the stat: %v %v -> %v %v", fi.Size(), fi.ModTime(), after.Size(), after.ModTime())
	}
	if got := msg(); got != "\x00u\x00other" {
		t.Errorf("after a same-stat rewrite %q, want the new password", got)
	}
}

// clientLeaf is the client certificate creds present now.
func clientLeaf(t *testing.T, creds *Credentials) *x509.Certificate {
	t.Helper()
	c, err := creds.tls.config("127.0.0.1").GetClientCertificate(&tls.CertificateRequestInfo{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := x509.ParseCertificate(c.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	return l
}
