package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --kafka.properties-file: relative to the working directory, it replaces
// the file's kafka.properties_file; without a configuration file its
// producer and consumer keys shape the default probe, and the --probe.*
// flags still apply.
func TestEffectivePropertiesFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("client.properties", "bootstrap.servers=k1:9092\nlinger.ms=7\nisolation.level=read_committed\n")
	write("other.properties", "bootstrap.servers=k2:9092\n")
	write("bench.yml", "kafka: {properties_file: other.properties}\nprobes: [{name: a}]\n")
	t.Chdir(dir)

	acks := "1"
	cfg, err := Effective("", Overrides{PropertiesFile: "client.properties", ProbeAcks: &acks})
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Probes) != 1 {
		t.Fatalf("probes = %+v, want the default probe", cfg.Probes)
	}
	p := cfg.Probes[0]
	if cfg.Kafka.Brokers[0] != "k1:9092" || p.Name != DefaultProbeName || p.Producer.LingerMS != 7 ||
		p.Consumer.IsolationLevel != "read_committed" || p.Producer.Acks != "1" || *p.Producer.EnableIdempotence {
		t.Errorf("brokers %v, probe %s: linger.ms %v, isolation.level %q, acks %q, idempotence %v; want k1:9092, default, 7, read_committed, 1, false",
			cfg.Kafka.Brokers, p.Name, p.Producer.LingerMS, p.Consumer.IsolationLevel, p.Producer.Acks, *p.Producer.EnableIdempotence)
	}

	cfg, err = Effective("bench.yml", Overrides{PropertiesFile: "client.properties"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Kafka.Brokers[0] != "k1:9092" || cfg.Probes[0].Producer.LingerMS != 7 {
		t.Errorf("with a file: brokers %v, linger.ms %v; want the flag's file (k1:9092, 7), not the file's key", cfg.Kafka.Brokers, cfg.Probes[0].Producer.LingerMS)
	}

	if _, err := Effective("", Overrides{PropertiesFile: "missing.properties"}); err == nil ||
		!strings.Contains(err.Error(), "kafka.properties_file") || !strings.Contains(err.Error(), "missing.properties") {
		t.Errorf("a missing file: %v, want an error naming the key and the file", err)
	}
	if _, err := Effective("", Overrides{PropertiesFile: "client.properties", NoProbes: true}); err == nil ||
		!strings.Contains(err.Error(), "linger.ms") {
		t.Errorf("--no-probes with producer keys: %v, want them refused, naming one", err)
	}
}
