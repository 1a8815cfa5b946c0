package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/kafka-bench/kafka_bench_exporter/mixin"
)

// generatedPaths is every file rendered from the mixin. A file added to or
// dropped from the rendering must be added or dropped here too.
var generatedPaths = []string{
	"alerts/alerts.yml",
	"alerts/recording_rules.yml",
	"dashboards/import/kafka-bench-compare.json",
	"dashboards/import/kafka-bench-groups.json",
	"dashboards/import/kafka-bench-overview.json",
	"dashboards/kafka-bench-compare.json",
	"dashboards/kafka-bench-groups.json",
	"dashboards/kafka-bench-overview.json",
	"deploy/helm/kafka-bench-exporter/files/dashboards/kafka-bench-compare.json",
	"deploy/helm/kafka-bench-exporter/files/dashboards/kafka-bench-groups.json",
	"deploy/helm/kafka-bench-exporter/files/dashboards/kafka-bench-overview.json",
	"deploy/helm/kafka-bench-exporter/files/prometheusrule-groups.yaml",
	"deploy/kubernetes/grafana-dashboards.yaml",
	"deploy/kubernetes/prometheusrule.yaml",
	"mixin/lib/buckets.libsonnet",
}

// TestGeneratedUpToDate fails while a committed file differs from what
// go generate ./mixin writes, byte for byte.
func TestGeneratedUpToDate(t *testing.T) {
	files, err := Generated()
	if err != nil {
		t.Fatal(err)
	}
	if got := mixin.Names(files); !slices.Equal(got, generatedPaths) {
		t.Fatalf("generated paths = %q, want %q", got, generatedPaths)
	}
	root := filepath.Join("..", "..")
	for _, p := range generatedPaths {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			t.Errorf("%s: %v; run go generate ./mixin", p, err)
			continue
		}
		if !bytes.Equal(b, files[p]) {
			t.Errorf("%s differs from the mixin: run go generate ./mixin and commit the result", p)
		}
	}
}
