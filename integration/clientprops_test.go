package integration

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

// The exporter reads a team's client.properties for the SASL_SSL listener
// (SCRAM-SHA-512 in sasl.jaas.config, PEM trust and key stores beside the
// file, mTLS) through kafka.properties_file, with producer keys in it: on
// the real binary the probe produces and consumes, nothing is lost or
// fails, the file's linger.ms is the probe's, and the log never shows the
// password.
func TestSecurityClientPropertiesFile(t *testing.T) {
	parallel(t) // waits more than it computes; see waiting in main_test.go
	c := secureCluster(t)
	certs := c.Certs()
	dir := t.TempDir()
	copyFile := func(to string, from ...string) {
		var data []byte
		for _, f := range from {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			data = append(data, b...)
		}
		if err := os.WriteFile(filepath.Join(dir, to), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	copyFile("ca.pem", certs.CAFile)
	copyFile("client.pem", certs.ClientCertFile, certs.ClientKeyFile) // Kafka's PEM keystore: the chain and the key in one file
	props := fmt.Sprintf(`# the team's client.properties
bootstrap.servers=%s
security.protocol=SASL_SSL
sasl.mechanism=SCRAM-SHA-512
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required \
    username="%s" password="%s";
ssl.truststore.type=PEM
ssl.truststore.location=ca.pem
ssl.keystore.type=PEM
ssl.keystore.location=client.pem
ssl.endpoint.identification.algorithm=https
acks=all
linger.ms=10
`, strings.Join(c.SecureBootstrap(), ","), secureUser, securePassword)
	if err := os.WriteFile(filepath.Join(dir, "client.properties"), []byte(props), 0o600); err != nil {
		t.Fatal(err)
	}
	const probe = "props"
	url, _, logs := startBinary(t, fmt.Sprintf(`
kafka:
  properties_file: %s
probes:
  - name: props
    rate: 300
    record_size: 512
    lag_interval: 1s
    create_topic: {partitions: 3, replication_factor: 1}
`, filepath.Join(dir, "client.properties")))
	f := waitFlowing(t, url, probe, 1000)
	assertCounters(t, f, probe, map[string]float64{"kafka_bench_records_lost_total": 0, "kafka_bench_produce_failed_total": 0})
	if got := f.Label("kafka_bench_probe_info", "linger_ms", "probe", probe); got != "10" {
		t.Errorf("kafka_bench_probe_info linger_ms = %q, want the file's 10", got)
	}
	if strings.Contains(logs.String(), securePassword) {
		t.Error("the log shows the password")
	}
}

// The same team's client.properties with Java stores instead of PEM files:
// a PKCS12 truststore and a PKCS12 keystore with their passwords, as
// keytool writes them, for the SASL_SSL listener that requires client
// certificates. The broker accepts the keystore's certificate (mTLS):
// records flow, nothing is lost, and the log shows no password
// (cmd/kafka_bench_exporter's TestConfigCheckRedactsStorePasswords checks
// --config.check).
func TestSecurityClientPropertiesKeystores(t *testing.T) {
	parallel(t) // waits more than it computes; see waiting in main_test.go
	c := secureCluster(t)
	certs := c.Certs()
	dir := t.TempDir()
	const storePassword = "store-pw-2718"
	trust, err := certs.PKCS12Truststore(storePassword)
	if err != nil {
		t.Fatal(err)
	}
	key, err := certs.PKCS12Keystore(storePassword)
	if err != nil {
		t.Fatal(err)
	}
	props := fmt.Sprintf(`bootstrap.servers=%s
security.protocol=SASL_SSL
sasl.mechanism=SCRAM-SHA-512
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="%s" password="%s";
ssl.truststore.type=PKCS12
ssl.truststore.location=truststore.p12
ssl.truststore.password=%s
ssl.keystore.type=PKCS12
ssl.keystore.location=keystore.p12
ssl.keystore.password=%s
ssl.key.password=%s
`, strings.Join(c.SecureBootstrap(), ","), secureUser, securePassword, storePassword, storePassword, storePassword)
	for name, b := range map[string][]byte{"truststore.p12": trust, "keystore.p12": key, "client.properties": []byte(props)} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	const probe = "stores"
	url, _, logs := startBinary(t, fmt.Sprintf(`
kafka:
  properties_file: %s
probes:
  - name: %s
    rate: 300
    record_size: 512
    lag_interval: 1s
    create_topic: {partitions: 3, replication_factor: 1}
`, filepath.Join(dir, "client.properties"), probe))
	f := waitFlowing(t, url, probe, 500)
	assertCounters(t, f, probe, map[string]float64{"kafka_bench_records_lost_total": 0, "kafka_bench_produce_failed_total": 0})
	if strings.Contains(logs.String(), storePassword) || strings.Contains(logs.String(), securePassword) {
		t.Error("the log shows a password")
	}
}

// waitFlowing waits until the exporter at url is ready and its probe has
// produced and consumed n records, and returns that scrape.
func waitFlowing(t *testing.T, url, probe string, n float64) scrape.Families {
	t.Helper()
	var f scrape.Families
	probetest.Eventually(t, 90*time.Second, fmt.Sprintf("%v records produced and consumed", n), func() (bool, string) {
		resp, err := http.Get(url + "/-/ready")
		if err != nil {
			return false, err.Error()
		}
		resp.Body.Close()
		if f, err = scrape.Get(url + "/metrics"); err != nil {
			return false, err.Error()
		}
		p, cons := value(t, f, "kafka_bench_produced_records_total", probe), value(t, f, "kafka_bench_consumed_records_total", probe)
		return resp.StatusCode == http.StatusOK && p >= n && cons >= n, fmt.Sprintf("ready %d, produced %v, consumed %v", resp.StatusCode, p, cons)
	})
	return f
}
