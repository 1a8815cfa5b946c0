package spec

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/httpconf"
	"github.com/kafka-bench/kafka_bench_exporter/internal/fixtures"
	"github.com/kafka-bench/kafka_bench_exporter/sasl"
)

// TestHostsParsed: entries keep their order; role, disks and interfaces
// default as the exporter's host section does.
func TestHostsParsed(t *testing.T) {
	b, err := Parse([]byte(`num_records: 10
hosts:
  - {name: kafka1, url: "http://kafka1:9100/metrics", role: broker, disks: "^nvme0n1$"}
  - {name: agent, url: "https://kafka2:10092/metrics"}
`))
	if err != nil {
		t.Fatal(err)
	}
	want := []HostEntry{
		{Name: "kafka1", URL: "http://kafka1:9100/metrics", Role: "broker", Disks: "^nvme0n1$", Interfaces: config.DefaultInterfaces},
		{Name: "agent", URL: "https://kafka2:10092/metrics", Role: "other", Disks: config.DefaultDisks, Interfaces: config.DefaultInterfaces},
	}
	if !reflect.DeepEqual(b.Hosts, want) {
		t.Errorf("hosts = %+v\nwant   %+v", b.Hosts, want)
	}
}

// Every URL-valued key of a bench file (hosts[].url, the kafka block's
// token endpoint, ...) is shown redacted in its validation error, whether
// or not the URL parses.
func TestURLKeyErrorsRedacted(t *testing.T) {
	keys := config.URLKeys(reflect.TypeFor[File]())
	for _, want := range []string{"hosts[].url", "kafka.sasl.oauth.token_endpoint", "hosts[].http_config.proxy_url", "kafka.sasl.oauth.http_config.proxy_url"} {
		if !slices.Contains(keys, want) {
			t.Errorf("the walk does not find %s among %v", want, keys)
		}
	}
	fixtures.URLKeyErrors(t, keys, map[string]any{"num_records": 1}, map[string]map[string]any{
		"kafka":   {"brokers": []any{"127.0.0.1:9092"}},
		"sasl":    {"mechanism": sasl.OAuthBearer},
		"hosts[]": {"name": "kafka1", "url": "https://kafka1.test:9100/metrics"},
		"oauth":   {"token_endpoint": "https://token.test/token", "client_id": "bench", "client_secret_file": "secret"},
	}, func(f string) error {
		_, err := Load(f)
		return err
	})
}

// An entry's client needs its http_config resolved (its files read); one
// without an http_config needs nothing.
func TestHostClientResolved(t *testing.T) {
	h := HostEntry{Name: "kafka1", HTTP: httpconf.Client{ProxyURL: "http://proxy:3128"}}
	if _, err := h.Client(time.Second); err == nil || !strings.Contains(err.Error(), "http_config was not resolved") {
		t.Errorf("unresolved http_config: %v", err)
	}
	if err := h.resolve(); err != nil {
		t.Fatal(err)
	}
	if c, err := h.Client(time.Second); err != nil || c.Timeout != time.Second {
		t.Errorf("resolved http_config: %v", err)
	}
	plain := HostEntry{Name: "kafka2"}
	if c, err := plain.Client(time.Second); err != nil || c.Timeout != time.Second {
		t.Errorf("no http_config: %v", err)
	}
}
