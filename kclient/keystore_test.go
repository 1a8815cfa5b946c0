package kclient

import (
	"context"
	"crypto/x509"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testcerts"
)

const storePW = "store-pw-4711"

// writeStores writes certs' PKCS12 truststore and keystore (password
// storePW) into dir as trust.p12 and client.p12.
func writeStores(t *testing.T, dir string, certs *testcerts.Set) {
	t.Helper()
	trust, err := certs.PKCS12Truststore(storePW)
	if err != nil {
		t.Fatal(err)
	}
	key, err := certs.PKCS12Keystore(storePW)
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "trust.p12"), trust)
	write(t, filepath.Join(dir, "client.p12"), key)
}

// A client built from a client.properties with a PKCS12 truststore and
// keystore reaches a TLS broker that requires client certificates (kfake
// with mTLS): the handshake authenticates with the keystore's certificate.
// A keystore of a client the broker's CA did not sign fails.
func TestPKCS12PropertiesMTLSToBroker(t *testing.T) {
	dir := t.TempDir()
	certs, err := testcerts.Generate(dir)
	if err != nil {
		t.Fatal(err)
	}
	writeStores(t, dir, certs)
	other, err := testcerts.Generate(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	otherDir := filepath.Join(dir, "other")
	if err := os.Mkdir(otherDir, 0o700); err != nil {
		t.Fatal(err)
	}
	writeStores(t, otherDir, other)
	broker, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.TLS(certs.ServerTLS(true)))
	if err != nil {
		t.Fatal(err)
	}
	defer broker.Close()
	ping := func(keystore string) error {
		props := "bootstrap.servers=" + strings.Join(broker.ListenAddrs(), ",") + `
security.protocol=SSL
ssl.truststore.type=PKCS12
ssl.truststore.location=trust.p12
ssl.truststore.password=` + storePW + `
ssl.keystore.type=PKCS12
ssl.keystore.location=` + keystore + `
ssl.keystore.password=` + storePW + `
`
		write(t, filepath.Join(dir, "client.properties"), []byte(props))
		file := filepath.Join(dir, "config.yml")
		write(t, file, []byte("kafka: {properties_file: client.properties}\n"))
		cfg, err := config.LoadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		res, err := config.ResolveFile(cfg, file)
		if err != nil {
			t.Fatal(err)
		}
		cl, err := New(res.Kafka, Options{Logger: slog.New(slog.DiscardHandler), Labels: Labels{Probe: "p", Role: RoleAdmin}})
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return cl.Ping(ctx)
	}
	if err := ping("client.p12"); err != nil {
		t.Errorf("ping with the PKCS12 keystore: %v", err)
	}
	if err := ping("other/client.p12"); err == nil {
		t.Error("ping with a keystore of another CA succeeded")
	}
}

// A keystore rewritten while the client runs (cert-manager renews its
// keystore.p12) is used by the next connection; a keystore that the
// password does not open keeps the previous certificate and is counted.
func TestKeystoreRotates(t *testing.T) {
	dir := t.TempDir()
	sets := make([]*testcerts.Set, 2)
	for i := range sets {
		s, err := testcerts.Generate(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		sets[i] = s
	}
	ks := filepath.Join(dir, "client.p12")
	pw := filepath.Join(dir, "keystore.pw")
	b, err := sets[0].PKCS12Keystore(storePW)
	if err != nil {
		t.Fatal(err)
	}
	write(t, ks, b)
	write(t, pw, []byte(storePW+"\n"))
	k := config.Kafka{Brokers: []string{"127.0.0.1:9093"}, TLS: config.TLS{Enabled: true, KeystoreFile: ks, KeystorePasswordFile: pw}}
	m := NewCredentialMetrics(prometheus.NewRegistry())
	creds, err := NewCredentials(resolved(t, k), m, nil)
	if err != nil {
		t.Fatal(err)
	}
	verifies := func(set int) bool {
		t.Helper()
		_, err := clientLeaf(t, creds).Verify(x509.VerifyOptions{Roots: sets[set].CAPool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
		return err == nil
	}
	if !verifies(0) {
		t.Fatal("the initial certificate is not the first set's")
	}
	// A new keystore with another password, the password file not yet
	// rewritten: it does not open, the old certificate stays.
	b, err = sets[1].PKCS12Keystore("new-pw-0815")
	if err != nil {
		t.Fatal(err)
	}
	write(t, ks, b)
	if !verifies(0) || metricValue(m.reloadFailed.WithLabelValues(KindTLSClientCert)) != 1 {
		t.Errorf("a keystore the password does not open: old kept %v, failures %v", verifies(0), metricValue(m.reloadFailed.WithLabelValues(KindTLSClientCert)))
	}
	write(t, pw, []byte("new-pw-0815\n"))
	if !verifies(1) {
		t.Error("the rotated keystore with its new password is not used")
	}
}
