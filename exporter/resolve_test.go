package exporter_test

import (
	"testing"

	"github.com/kafka-bench/kafka_bench_exporter/config"
)

// resolve is the resolve step of a parsed configuration (files relative to
// the working directory), passing a parse error on.
func resolve(cfg *config.Config, err error) (*config.Resolved, error) {
	if err != nil {
		return nil, err
	}
	return config.Resolve(cfg, "")
}

// mustResolve is resolve for a configuration that must resolve.
func mustResolve(t testing.TB, cfg *config.Config) *config.Resolved {
	t.Helper()
	res, err := resolve(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
