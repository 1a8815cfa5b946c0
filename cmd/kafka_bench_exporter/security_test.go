package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/internal/testcerts"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testenv"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

// --config.check prints the effective configuration with the password
// redacted, whatever its source.
func TestConfigCheckRedactsSecrets(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "pw"), []byte("file-pw-123\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, sasl := range map[string]string{
		"inline": "password: inline-pw-123",
		"file":   "password_file: pw",
	} {
		t.Run(name, func(t *testing.T) {
			cfg := filepath.Join(dir, name+".yml")
			if err := os.WriteFile(cfg, []byte("kafka:\n  brokers: [127.0.0.1:9092]\n  sasl: {mechanism: SCRAM-SHA-512, username: alice, "+sasl+"}\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := runCaptured(t, "--config.check", "--config.file", cfg)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if strings.Contains(stdout+stderr, "-pw-123") {
				t.Errorf("--config.check shows the password:\n%s", stdout)
			}
			if !strings.Contains(stdout, "username: alice") || !strings.Contains(stdout, "mechanism: SCRAM-SHA-512") {
				t.Errorf("--config.check lacks the SASL settings:\n%s", stdout)
			}
			if name == "inline" && !strings.Contains(stdout, "password: <secret>") {
				t.Errorf("inline password not shown as <secret>:\n%s", stdout)
			}
		})
	}
}

// --config.check of a configuration whose client.properties names PKCS12
// stores and their passwords shows each password as <secret>, never its
// value, while the stores are opened with them.
func TestConfigCheckRedactsStorePasswords(t *testing.T) {
	dir := t.TempDir()
	certs, err := testcerts.Generate(dir)
	if err != nil {
		t.Fatal(err)
	}
	const pw = "store-pw-7q1z"
	trust, err := certs.PKCS12Truststore(pw)
	if err != nil {
		t.Fatal(err)
	}
	key, err := certs.PKCS12Keystore(pw)
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{
		"trust.p12":  trust,
		"client.p12": key,
		"client.properties": []byte("bootstrap.servers=127.0.0.1:9093\nsecurity.protocol=SSL\nssl.truststore.type=PKCS12\nssl.truststore.location=trust.p12\n" +
			"ssl.truststore.password=" + pw + "\nssl.keystore.type=PKCS12\nssl.keystore.location=client.p12\nssl.keystore.password=" + pw + "\nssl.key.password=" + pw + "\n"),
		"exporter.yml": []byte("kafka: {properties_file: client.properties}\n"),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := runCaptured(t, "--config.check", "--config.file", filepath.Join(dir, "exporter.yml"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(stdout+stderr, pw) {
		t.Errorf("--config.check shows the password:\n%s", stdout)
	}
	for _, k := range []string{"truststore_password: <secret>", "keystore_password: <secret>", "key_password: <secret>", "keystore_type: PKCS12"} {
		if !strings.Contains(stdout, k) {
			t.Errorf("--config.check lacks %q:\n%s", k, stdout)
		}
	}
	// A wrong password: exit 1, one line naming the store, not the password.
	props := strings.ReplaceAll(string(must(os.ReadFile(filepath.Join(dir, "client.properties")))), "ssl.keystore.password="+pw, "ssl.keystore.password=wrong-7q1z")
	if err := os.WriteFile(filepath.Join(dir, "client.properties"), []byte(props), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = runCaptured(t, "--config.check", "--config.file", filepath.Join(dir, "exporter.yml"))
	if code != 1 || !strings.Contains(stderr, "kafka.tls.keystore_file") || !strings.Contains(stderr, "does not open with kafka.tls.keystore_password") ||
		strings.Contains(stdout+stderr, "7q1z") {
		t.Errorf("a wrong keystore password: exit %d\n%s%s", code, stdout, stderr)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// The secrets of every kafka section, each set to a marker (a replica
// block's SASL password, the kafka block's OAuth client secret, a Kerberos
// password), appear in no output: --config.check, the daemon's log at
// start, at a refused reload and at a reload, its HTTP pages, and bench
// --dry-run. The brokers refuse connections: what the probes log when
// they fail is an output too.
func TestNoSecretOfAnyKafkaSectionInAnyOutput(t *testing.T) {
	markers := map[string]string{"replica password": "replica-pw-7q1z", "OAuth client secret": "oauth-secret-7q1z", "Kerberos password": "krb-pw-7q1z"}
	dir := t.TempDir()
	write := func(name, text string) string {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	secretFile := write("client-secret", markers["OAuth client secret"]+"\n")
	krb5 := write("krb5.conf", "[libdefaults]\n  default_realm = EXAMPLE.TEST\n[realms]\n  EXAMPLE.TEST = {\n    kdc = "+testenv.FreeAddr(t)+"\n  }\n")
	broker := testenv.FreeAddr(t)
	kafka := fmt.Sprintf(`kafka:
  brokers: [%s]
  sasl:
    mechanism: OAUTHBEARER
    oauth: {token_endpoint: "http://%s/token", client_id: bench, client_secret_file: %s}
`, broker, testenv.FreeAddr(t), secretFile)
	daemon := func(rate int, replicaSASL string) string {
		return kafka + fmt.Sprintf(`host: {enabled: false}
probes:
  - name: far
    rate: %d
    record_size: 100
    replica: {kafka: {brokers: [%s], sasl: %s}}
  - name: krb
    rate: %d
    record_size: 100
    replica:
      kafka:
        brokers: [%s]
        sasl: {mechanism: GSSAPI, username: bench, password: %s, kerberos: {config_file: %s}}
`, rate, broker, replicaSASL, rate, broker, markers["Kerberos password"], krb5)
	}
	replicaPlain := "{mechanism: PLAIN, username: u, password: " + markers["replica password"] + "}"
	cfgFile := write("exporter.yml", daemon(10, replicaPlain))
	outputs := map[string]string{}

	code, stdout, stderr := runCaptured(t, "--config.check", "--config.file", cfgFile)
	if code != 0 || !strings.Contains(stdout, "password: <secret>") {
		t.Fatalf("--config.check: exit %d\n%s%s", code, stdout, stderr)
	}
	outputs["--config.check"] = stdout + stderr

	addr := testenv.FreeAddr(t)
	url := "http://" + addr
	p := startBinary(t, "--web.listen-address="+addr, "--config.file="+cfgFile, "--web.enable-lifecycle")
	get := func(path string) (int, string) {
		resp, err := http.Get(url + path)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	probetest.Eventually(t, 30*time.Second, "the exporter serving, both probes failing to reach their brokers", func() (bool, string) {
		code, _ := get("/-/healthy")
		logs := p.logs.String()
		return code == http.StatusOK && strings.Contains(logs, "probe topic not ready; retrying\" probe=far") &&
			strings.Contains(logs, "probe topic not ready; retrying\" probe=krb"), fmt.Sprintf("/-/healthy %d", code)
	})
	for _, path := range []string{"/", "/live.json", "/metrics", "/changes"} {
		_, outputs[path] = get(path)
	}
	reload := func(text string, want int) {
		t.Helper()
		write("exporter.yml", text)
		resp, err := http.Post(url+"/-/reload", "", nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		outputs[fmt.Sprintf("reload answer %d (%d)", want, len(outputs))] = string(b)
		if resp.StatusCode != want {
			t.Fatalf("reload: %d %s, want %d", resp.StatusCode, b, want)
		}
	}
	// Refused: a misspelt key next to the replica's password, then a
	// Kerberos password with an unknown mechanism next to it.
	reload(daemon(10, "{mechanism: PLAIN, username: u, passwrd: "+markers["replica password"]+"}"), http.StatusBadRequest)
	reload(daemon(10, "{mechanism: PLAN, username: u, password: "+markers["replica password"]+"}"), http.StatusBadRequest)
	reload(daemon(20, replicaPlain), http.StatusOK)
	probetest.Eventually(t, 30*time.Second, "the reload applied", func() (bool, string) {
		return strings.Contains(p.logs.String(), "configuration reloaded"), "no reload logged"
	})
	p.stop(t)
	outputs["daemon log"] = p.logs.String()
	for _, want := range []string{
		`replica.kafka.sasl.passwrd = <secret>: unknown key`, `replica.kafka.sasl.mechanism = \"PLAN\"`,
		`msg="replica.kafka.sasl.mechanism PLAIN without replica.kafka.tls.enabled sends the password in clear text" probe=far`,
	} {
		if !strings.Contains(outputs["daemon log"], want) {
			t.Errorf("the daemon log lacks %s", want)
		}
	}

	bench := write("bench.yml", kafka+"num_records: 10\nmatrix:\n  producer.linger.ms: [0, 5]\n")
	code, stdout, stderr = runCLI(t, "bench", "--bench.file", bench, "--dry-run")
	if code != 0 {
		t.Fatalf("bench --dry-run: exit %d\n%s%s", code, stdout, stderr)
	}
	outputs["bench --dry-run"] = stdout + stderr

	for what, out := range outputs {
		for name, m := range markers {
			if strings.Contains(out, m) {
				t.Errorf("%s shows the %s:\n%s", what, name, out)
			}
		}
	}
}

// --kafka.properties-file without --config.file: the client.properties
// of the Kafka tools configures the connection and the default probe,
// and its JAAS password shows as <secret>.
func TestConfigCheckPropertiesFileFlag(t *testing.T) {
	dir := t.TempDir()
	props := filepath.Join(dir, "client.properties")
	if err := os.WriteFile(props, []byte(`bootstrap.servers=127.0.0.1:9092
security.protocol=SASL_PLAINTEXT
sasl.mechanism=SCRAM-SHA-256
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="props-pw-123";
linger.ms=9
`), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCaptured(t, "--config.check", "--kafka.properties-file", props, "--probe.rate", "50")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(stdout+stderr, "props-pw-123") {
		t.Errorf("--config.check shows the password:\n%s", stdout)
	}
	for _, want := range []string{"username: alice", "mechanism: SCRAM-SHA-256", "password: <secret>", "linger.ms: 9", "rate: 50", "- 127.0.0.1:9092"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("--config.check lacks %q:\n%s", want, stdout)
		}
	}
}
