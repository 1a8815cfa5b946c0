package main

import (
	"os"
	"strings"
	"testing"

	"github.com/kafka-bench/kafka_bench_exporter/alerts"
	"github.com/kafka-bench/kafka_bench_exporter/exporter/configwatch"
	"github.com/kafka-bench/kafka_bench_exporter/internal/readme"
)

// edited is a page of the docs with old replaced by repl (old must occur
// once).
func edited(t *testing.T, page, old, repl string) *readme.Doc {
	t.Helper()
	data, err := os.ReadFile(repoRoot + "/" + page)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), old); n != 1 {
		t.Fatalf("%s holds %q %d times, want once", page, old, n)
	}
	return readme.Parse(page, strings.Replace(string(data), old, repl, 1))
}

// caught fails unless one of problems contains every part of want.
func caught(t *testing.T, problems []string, want ...string) {
	t.Helper()
	for _, p := range problems {
		all := true
		for _, w := range want {
			all = all && strings.Contains(p, w)
		}
		if all {
			return
		}
	}
	t.Errorf("drift not caught: no problem mentions %q; problems: %q", want, problems)
}

// The checks of what cannot be generated fail when either side changes
// alone: a page or the program.
func TestReadmeDriftIsCaught(t *testing.T) {
	t.Run("link to a heading that moved", func(t *testing.T) {
		d := edited(t, "docs/how-it-measures.md", "(benchmarks.md#always-on-cost)", "(benchmarks.md#always-on-cost-same-run)")
		caught(t, d.CheckLinks(repoRoot+"/docs"), "docs/how-it-measures.md:", "benchmarks.md has no heading with anchor #always-on-cost-same-run")
	})
	t.Run("link from README to a page that moved", func(t *testing.T) {
		d := edited(t, "README.md", "(docs/security.md)", "(docs/securty.md)")
		caught(t, d.CheckLinks(repoRoot), "README.md:", "docs/securty.md: no such file")
	})
	t.Run("numeric setting removed from the page", func(t *testing.T) {
		d := edited(t, configPage, "`num.partitions`, ", "")
		caught(t, checkNumericSettings(t, d, configwatch.ValueAllowList), "numeric settings")
		caught(t, checkNumericSettings(t, loadDoc(t, configPage), configwatch.ValueAllowList[1:]), "brokers × 22 series")
	})
	t.Run("property mapping row removed", func(t *testing.T) {
		d := edited(t, configPage, "| `retries` | `kgo.RecordRetries` | |\n", "")
		caught(t, checkPropertyMapping(t, d), "accepts retries, which has no row")
	})
	t.Run("property mapping row for a key the file lacks", func(t *testing.T) {
		d := edited(t, configPage, "| `retries` |", "| `retry.backoff.ms` |")
		caught(t, checkPropertyMapping(t, d), "retry.backoff.ms is not a producer or consumer key")
	})
	t.Run("page left out of the README's map", func(t *testing.T) {
		d := edited(t, "README.md", "| [docs/capacity.md](docs/capacity.md) |", "| capacity |")
		caught(t, checkDocsMap(t, d, loadDocs(t)), "docs/capacity.md is not in the map")
	})
	t.Run("runbook_url points elsewhere", func(t *testing.T) {
		rules := []alerts.Rule{{File: "alerts.yml", Alert: "KafkaBenchRecordsLost",
			Annotations: map[string]string{"runbook_url": "https://example.com/README.md#kafkabenchrecordslost"}}}
		caught(t, checkRunbooks(t, loadDoc(t, runbooksPage), rules), "KafkaBenchRecordsLost", "does not point to docs/runbooks.md")
	})
}

// metricDriftIsCaught: label references, runbooks, rule labels and layout
// drift is caught too, on the exposition of TestReadmeMetricsAndAlerts (one
// embedded cluster) and the real tree.
func metricDriftIsCaught(t *testing.T, fams map[string]readme.Family) {
	t.Run("runbook names a label the metric lacks", func(t *testing.T) {
		d := edited(t, runbooksPage, "`kafka_bench_client_request_duration_e2e_seconds` by `node_id`", "`kafka_bench_client_request_duration_e2e_seconds` by broker")
		caught(t, d.CheckRefs(d.All(), fams), "docs/runbooks.md:", "names label broker on kafka_bench_client_request_duration_e2e_seconds")
	})
	t.Run("runbook heading renamed", func(t *testing.T) {
		d := edited(t, runbooksPage, "## KafkaBenchRecordsLost\n", "## KafkaBenchRecordLost\n")
		s, err := d.Section("Runbooks")
		if err != nil {
			t.Fatal(err)
		}
		p := d.CheckRunbooks(s, map[string]string{"KafkaBenchRecordsLost": "kafkabenchrecordslost"})
		caught(t, p, "alert KafkaBenchRecordsLost has no runbook")
		caught(t, p, "runbook KafkaBenchRecordLost is for no alert")
	})
	t.Run("rule names a label its metrics lack", func(t *testing.T) {
		rules := []alerts.Rule{
			{File: "alerts.yml", Record: "kafka_bench:produced:rate5m", Expr: "sum by (job, instance, probe) (rate(kafka_bench_produced_records_total[5m]))"},
			{File: "alerts.yml", Alert: "Test", Expr: "kafka_bench:produced:rate5m{probe=\"x\"} < on (job, instance, broker) kafka_bench_probe_up",
				Annotations: map[string]string{"description": "{{ $labels.probe }} {{ $labels.topic }}"}},
		}
		p := checkRuleLabels(rules, fams)
		caught(t, p, "rule Test names label broker")
		caught(t, p, "rule Test names label topic")
		if len(p) != 2 {
			t.Errorf("want exactly the broker and topic problems, got %q", p)
		}
	})
	t.Run("layout row removed", func(t *testing.T) {
		d := edited(t, layoutPage, "| `internal/testcerts` |", "| `internal/testcertz` |")
		p := readme.CheckLayout(table(t, d, "Layout", "folder"), repoFiles(t), layoutIgnore)
		caught(t, p, "internal/testcertz does not exist")
		caught(t, p, "internal/testcerts/ is in the tree but not in the table")
	})
	t.Run("file added to the tree", func(t *testing.T) {
		files := append(repoFiles(t), "scripts/warmup.sh", "probes/warmup.go")
		p := readme.CheckLayout(table(t, loadDoc(t, layoutPage), "Layout", "folder"), files, layoutIgnore)
		caught(t, p, "scripts/warmup.sh is in the tree")
		caught(t, p, "probes/ lists its entries but not warmup.go")
	})
}
