package config

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kafka-bench/kafka_bench_exporter/internal/testcerts"
	"github.com/kafka-bench/kafka_bench_exporter/sasl"
)

// loadResolved is Load and the resolve step, as the exporter reads a file.
func loadResolved(file string) (*Resolved, error) {
	cfg, err := LoadFile(file)
	if err != nil {
		return nil, err
	}
	return ResolveFile(cfg, file)
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// A full kafka.tls + kafka.sasl section: files relative to the config
// file, the password from each source, the TLS client configuration, and
// no secret in --config.check output or in %v.
func TestSecurityConfig(t *testing.T) {
	dir := t.TempDir()
	if _, err := testcerts.Generate(dir); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "pw"), "from-file-pw\n")
	t.Setenv("KAFKA_BENCH_TEST_PW", "from-env-pw")
	for source, want := range map[string]string{
		"password: inline-pw":               "inline-pw",
		"password_file: pw":                 "from-file-pw",
		"password_env: KAFKA_BENCH_TEST_PW": "from-env-pw",
	} {
		file := filepath.Join(dir, "config.yml")
		writeFile(t, file, fmt.Sprintf(`
kafka:
  brokers: [127.0.0.1:9093]
  tls: {enabled: true, ca_file: ca.pem, cert_file: client.pem, key_file: client-key.pem, server_name: kafka.example}
  sasl: {mechanism: SCRAM-SHA-512, username: alice, %s}
`, source))
		res, err := loadResolved(file)
		if err != nil {
			t.Fatalf("%s: %v", source, err)
		}
		cfg := res.Config
		if res.Kafka.SASL() == nil {
			t.Errorf("%s: no SASL material resolved", source)
		}
		tc, err := res.Kafka.TLSConfig()
		if err != nil {
			t.Fatal(err)
		}
		if tc.RootCAs == nil || len(tc.Certificates) != 1 || tc.ServerName != "kafka.example" || tc.InsecureSkipVerify {
			t.Errorf("%s: TLS client config %+v", source, tc)
		}
		out, err := cfg.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		printed := string(out) + fmt.Sprintf("%v %+v %#v %v %+v %#v", cfg, cfg.Kafka, cfg.Kafka, res, res.Kafka, res.Kafka)
		if strings.Contains(printed, want) {
			t.Errorf("%s: the password is printed:\n%s", source, printed)
		}
		if strings.Contains(printed, "PRIVATE KEY") || strings.Contains(printed, "BEGIN") {
			t.Errorf("%s: key material is printed:\n%s", source, printed)
		}
		if w := (Section{Key: "kafka", Kafka: cfg.Kafka}).Warnings(); len(w) != 0 {
			t.Errorf("%s: warnings %q", source, w)
		}
	}
	if tc, err := (Cluster{}).TLSConfig(); tc != nil || err != nil {
		t.Errorf("TLS off: %v, %v", tc, err)
	}
}

// A rotated password file or certificate makes the configuration differ,
// so a reload restarts the probes with the new credentials; an unchanged
// one does not.
func TestRotatedFilesChangeTheConfig(t *testing.T) {
	dir := t.TempDir()
	if _, err := testcerts.Generate(dir); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "pw"), "one")
	file := filepath.Join(dir, "config.yml")
	writeFile(t, file, "kafka:\n  tls: {enabled: true, ca_file: ca.pem}\n  sasl: {mechanism: PLAIN, username: u, password_file: pw}\n")
	load := func() *Resolved {
		res, err := loadResolved(file)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a, b := load(), load()
	if !reflect.DeepEqual(a.Kafka, b.Kafka) {
		t.Fatal("the same files load as different configurations")
	}
	writeFile(t, filepath.Join(dir, "pw"), "two")
	if c := load(); reflect.DeepEqual(a.Kafka, c.Kafka) {
		t.Error("a new password in password_file left the configuration equal")
	}
	if _, err := testcerts.Generate(dir); err != nil { // a new CA
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "pw"), "one")
	if c := load(); reflect.DeepEqual(a.Kafka, c.Kafka) {
		t.Error("a new ca_file left the configuration equal")
	}
}

func TestSecurityWarnings(t *testing.T) {
	k := Kafka{TLS: TLS{Enabled: true, InsecureSkipVerify: true}, SASL: SASL{Mechanism: sasl.PLAIN, Username: "u", Password: "p"}}
	if err := k.Validate(); err != nil {
		t.Fatal(err)
	}
	if w := (Section{Key: "kafka", Kafka: k}).Warnings(); len(w) != 1 || !strings.Contains(w[0], "insecure_skip_verify") {
		t.Errorf("warnings = %q", w)
	}
	k.TLS = TLS{}
	if w := (Section{Key: "kafka", Kafka: k}).Warnings(); len(w) != 1 || !strings.Contains(w[0], "clear text") {
		t.Errorf("PLAIN without TLS: warnings = %q", w)
	}
}

func TestSecretRedaction(t *testing.T) {
	s := Secret("hunter2")
	for _, got := range []string{s.String(), fmt.Sprint(s), fmt.Sprintf("%v %s %#v %+v", s, s, s, s)} {
		if strings.Contains(got, "hunter2") {
			t.Errorf("printed %q", got)
		}
	}
	if y, _ := s.MarshalYAML(); y != "<secret>" {
		t.Errorf("MarshalYAML = %v", y)
	}
	if y, _ := Secret("").MarshalYAML(); y != nil {
		t.Errorf("empty MarshalYAML = %q, want nil (printed as null: unset, not an empty password)", y)
	}
	// What --config.check prints for an unset password loads again as unset.
	cfg, err := Parse(nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := cfg.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "password: null") {
		t.Errorf("unset password not printed as null:\n%s", out)
	}
	if again, err := Parse(out); err != nil || again.Kafka.SASL.Password != "" {
		t.Errorf("the printed configuration does not load again: %v", err)
	}
	if s.Reveal() != "hunter2" {
		t.Error("Reveal lost the secret")
	}
}
