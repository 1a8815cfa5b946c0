package config

import (
	"strings"
	"testing"

	"github.com/kafka-bench/kafka_bench_exporter/kafkaprops"
)

// TestPlainPropertyWithoutField: a plain Kafka property that is a row of
// kafkaprops and no field of its block (consumer.request.timeout.ms) is
// decoded from the file, from a properties file, checked against its row's
// range and type, printed by --config.check, and unset when the file
// leaves it out.
func TestPlainPropertyWithoutField(t *testing.T) {
	cfg, err := Parse([]byte("probes:\n  - name: a\n    consumer: {request.timeout.ms: 25000}\n  - name: b\n"))
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := cfg.Probes[0].Consumer.Property("request.timeout.ms"); !ok || v != int64(25000) {
		t.Errorf("probe a: request.timeout.ms = %v (set %v), want 25000", v, ok)
	}
	if v, ok := cfg.Probes[1].Consumer.Property("request.timeout.ms"); ok {
		t.Errorf("probe b: request.timeout.ms = %v, want unset", v)
	}
	out, err := cfg.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(out), "request.timeout.ms: 25000") != 1 {
		t.Errorf("the printed configuration does not show probe a's consumer request.timeout.ms once:\n%s", out)
	}
	again, err := Parse(out)
	if err != nil {
		t.Fatalf("the printed configuration does not load: %v", err)
	}
	if v, _ := again.Probes[0].Consumer.Property("request.timeout.ms"); v != int64(25000) {
		t.Errorf("reloaded: request.timeout.ms = %v, want 25000", v)
	}

	for yml, want := range map[string]string{
		"consumer: {request.timeout.ms: soon}":         `probe "a": consumer.request.timeout.ms = "soon": must be an integer`,
		"consumer: {request.timeout.ms: 3000000000}":   `probe "a": consumer.request.timeout.ms = 3000000000: out of range for a 32-bit integer`,
		"consumer: {request.timeout.ms: 1000000}":      `probe "a": consumer.request.timeout.ms = 1000000: must be 100 … 900000 (franz-go)`,
		"producer: {request.timeout.ms: 0}":            `probe "a": producer.request.timeout.ms = 0: must be >= 1`,
		"consumer: {request.timeout.ms: {a: 1}}":       `probe "a": consumer.request.timeout.ms = {...}: must be a single value`,
		"consumer: {request.timeout.ms: 100, kind: x}": `probe "a": consumer.kind = "x": must be group or share`,
	} {
		_, err := Parse([]byte("probes:\n  - name: a\n    " + yml + "\n"))
		if err == nil || err.Error() != want {
			t.Errorf("%s:\n got: %v\nwant: %s", yml, err, want)
		}
	}

	cfg, err = loadWith(t, "kafka: {properties_file: client.properties}\nprobes: [{name: a}]\n", "request.timeout.ms=20000\n")
	if err != nil {
		t.Fatal(err)
	}
	c := cfg.Probes[0]
	if v, _ := c.Consumer.Property("request.timeout.ms"); v != int64(20000) || c.Producer.RequestTimeoutMS != 20000 {
		t.Errorf("a properties file's request.timeout.ms: consumer %v, producer %d; want 20000 for both, as Java's clients", v, c.Producer.RequestTimeoutMS)
	}
}

// TestPlainDefaults: every plain property of a new probe holds its row's
// default, in a field of its block or in its Props, and one without a
// default is unset.
func TestPlainDefaults(t *testing.T) {
	p := NewProbe("p")
	for _, block := range []string{"producer", "consumer"} {
		get := p.Producer.Property
		if block == "consumer" {
			get = p.Consumer.Property
		}
		for _, row := range kafkaprops.Plains(block) {
			v, ok := get(row.Name)
			if ok != (row.Plain.Default != nil) || v != row.Plain.Default {
				t.Errorf("%s.%s = %#v (set %v), want its row's default %#v", block, row.Name, v, ok, row.Plain.Default)
			}
		}
	}
}
