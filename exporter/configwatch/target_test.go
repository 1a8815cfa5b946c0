package configwatch

import (
	"reflect"
	"testing"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/config"
)

func TestTargetFor(t *testing.T) {
	cfg, err := config.Parse([]byte("kafka: {brokers: [127.0.0.1:9092]}\nconfig_poll_interval: 15s\nprobes:\n  - name: a\n  - name: b\n    topic: other\n"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := config.Resolve(cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	got := TargetFor(res)
	want := []ProbeTopic{{Probe: "a", Topic: "kafka-bench-a"}, {Probe: "b", Topic: "other"}}
	if got.Interval != 15*time.Second || !reflect.DeepEqual(got.Topics, want) || !reflect.DeepEqual(got.Kafka, res.Kafka) {
		t.Errorf("TargetFor = %+v, want interval 15s and topics %v", got, want)
	}
	// A host agent without brokers has no cluster to poll.
	agent, err := config.Parse([]byte("probes: []\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := TargetFor(&config.Resolved{Config: agent}); got.Interval != 0 {
		t.Errorf("TargetFor without brokers: interval %s, want 0 (off)", got.Interval)
	}
}
