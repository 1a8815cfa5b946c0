package probes

import (
	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
)

// HookSink is a sink that gives every probe its hook H: the tests' event
// recorders.
type HookSink struct{ H event.Hook }

func (s HookSink) ForProbe(config.Probe) event.Hook { return s.H }
