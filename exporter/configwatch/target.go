package configwatch

import (
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/config"
)

// TargetFor is what the watcher polls for the resolved res: the cluster,
// every probe's topic, every config_poll_interval; nothing without brokers.
func TargetFor(res *config.Resolved) Target {
	cfg := res.Config
	t := Target{Kafka: res.Kafka, Interval: time.Duration(cfg.ConfigPollInterval)}
	if len(cfg.Kafka.Brokers) == 0 {
		t.Interval = 0 // a host agent without brokers has no cluster to watch
	}
	for _, p := range cfg.Probes {
		t.Topics = append(t.Topics, ProbeTopic{Probe: p.Name, Topic: p.Topic})
	}
	return t
}
