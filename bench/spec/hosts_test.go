package spec

import (
	"testing"

	"github.com/kafka-bench/kafka_bench_exporter/config"
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
	if len(b.Hosts) != len(want) || b.Hosts[0] != want[0] || b.Hosts[1] != want[1] {
		t.Errorf("hosts = %+v\nwant   %+v", b.Hosts, want)
	}
}
