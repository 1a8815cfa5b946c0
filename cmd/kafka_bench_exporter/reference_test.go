package main

// docs/reference/*.md are generated from the program (docgen): these tests
// fail when a committed page is not what the code says, and with
// -write-docs (`go generate ./...`) write it instead.

//go:generate go test -count=1 -run ^TestReference . -write-docs

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"

	"github.com/kafka-bench/kafka_bench_exporter/cmd/kafka_bench_exporter/docgen"
	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/exporter/configwatch"
	"github.com/kafka-bench/kafka_bench_exporter/kafkaprops"
)

var writeDocs = flag.Bool("write-docs", false, "write docs/reference/*.md from the code instead of comparing")

const referenceDir = repoRoot + "/docs/reference/"

func checkReference(t *testing.T, name string, got []byte) {
	t.Helper()
	path := referenceDir + name
	if *writeDocs {
		if err := os.MkdirAll(referenceDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("docs/reference/%s: %v: run go generate ./...", name, err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("docs/reference/%s differs from what the code says (%s): run go generate ./...", name, firstDifference(want, got))
	}
}

// firstDifference names the first line that differs, as committed and as
// generated.
func firstDifference(want, got []byte) string {
	w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d is %q, the code makes %q", i+1, wl, gl)
		}
	}
	return "same lines"
}

func TestReferenceFlags(t *testing.T) {
	checkReference(t, "flags.md", docgen.Flags(newApp(&flags{}, nil).Model()))
}

func TestReferenceConfig(t *testing.T) {
	refs, err := config.Reference()
	if err != nil {
		t.Fatal(err)
	}
	checkReference(t, "config.md", docgen.Config(refs))
}

func TestReferenceProperties(t *testing.T) {
	checkReference(t, "properties.md", docgen.Properties(kafkaprops.Properties))
}

// The metrics page is held to the exposition that the docs' label
// references are checked against (one run of the embedded cluster for both).
func TestReferenceMetrics(t *testing.T) {
	f := lastExposition
	if f == nil {
		exposition(t)
		f = lastExposition
	}
	contract, err := os.ReadFile(repoRoot + "/exporter/testdata/metric_names.txt")
	if err != nil {
		t.Fatal(err)
	}
	mfs := make([]*dto.MetricFamily, 0, len(f))
	for _, mf := range f {
		mfs = append(mfs, mf)
	}
	checkReference(t, "metrics.md", docgen.Metrics(mfs, strings.Fields(string(contract)), configwatch.ValueAllowList))
}
