package main

import (
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kafka-bench/kafka_bench_exporter/alerts"
	"github.com/kafka-bench/kafka_bench_exporter/internal/doccheck"
)

// edited is a page of the docs with old replaced by repl (old must occur
// once).
func edited(t *testing.T, page, old, repl string) *doccheck.Doc {
	t.Helper()
	data, err := os.ReadFile(repoRoot + "/" + page)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), old); n != 1 {
		t.Fatalf("%s holds %q %d times, want once", page, old, n)
	}
	return doccheck.Parse(page, strings.Replace(string(data), old, repl, 1))
}

// caught fails unless one of problems is want exactly.
func caught(t *testing.T, problems []string, want string) {
	t.Helper()
	if slices.Contains(problems, want) {
		return
	}
	t.Errorf("drift not caught: no problem %q; problems: %q", want, problems)
}

// lineOf is the 1-based line of page that holds s.
func lineOf(t *testing.T, page, s string) int {
	t.Helper()
	data, err := os.ReadFile(repoRoot + "/" + page)
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(data), s)
	if i < 0 {
		t.Fatalf("%s does not hold %q", page, s)
	}
	return strings.Count(string(data[:i]), "\n") + 1
}

// The checks of what cannot be generated fail when either side changes
// alone: a page or the program.
func TestDocsDriftIsCaught(t *testing.T) {
	t.Run("link to a heading that moved", func(t *testing.T) {
		const page, link = "docs/how-it-measures.md", "(benchmarks.md#always-on-cost)"
		d := edited(t, page, link, "(benchmarks.md#always-on-cost-same-run)")
		caught(t, d.CheckLinks(repoRoot), page+":"+strconv.Itoa(lineOf(t, page, link))+": link to benchmarks.md#always-on-cost-same-run: docs/benchmarks.md has no heading with anchor #always-on-cost-same-run")
	})
	t.Run("link from README to a page that moved", func(t *testing.T) {
		d := edited(t, "README.md", "(docs/security.md)", "(docs/securty.md)")
		caught(t, d.CheckLinks(repoRoot), "README.md:"+strconv.Itoa(lineOf(t, "README.md", "(docs/security.md)"))+": link to docs/securty.md: no such file")
	})
	t.Run("link from the chart's README", func(t *testing.T) {
		const page = "deploy/helm/kafka-bench-exporter/README.md"
		d := doccheck.Parse(page, "# Chart\n\nSee [the runbooks](../../../docs/runbooks.md#nope).\n")
		caught(t, d.CheckLinks(repoRoot), page+":3: link to ../../../docs/runbooks.md#nope: docs/runbooks.md has no heading with anchor #nope")
	})
	t.Run("unescaped pipe in a table", func(t *testing.T) {
		d := edited(t, "README.md", "| [docs/capacity.md](docs/capacity.md) | the capacity canary", "| [docs/capacity.md](docs/capacity.md) | a | the capacity canary")
		caught(t, d.CheckTables(), "README.md:"+strconv.Itoa(lineOf(t, "README.md", "| [docs/capacity.md](docs/capacity.md) |"))+": table row has 3 cells, its header 2: escape | inside a cell as \\|")
	})
	t.Run("flag, key and metric named in prose that the program lacks", func(t *testing.T) {
		d := doccheck.Parse("docs/x.md", "Set `--web.listen-addr`, `--no-probes`, `--[no-]web.enable-pprof`, the `--web.*` flags.\n"+
			"Watch `kafka_bench_records_lots_total` and `kafka_bench_records_lost_total`, `probe:kafka_bench_produced_records:rate5m`, `probe:kafka_bench_produced_records:rate7m`.\n"+
			"Set `kafka.tls.ca_fil`, `kafka.tls.ca_file`, `capacity.step_durations`, `capacity.step_duration`, `replica.fetch.max.bytes`.\n")
		p := d.CheckNames(programNames(t))
		caught(t, p, "docs/x.md:1: names flag --web.listen-addr, which no command has")
		caught(t, p, "docs/x.md:2: names metric kafka_bench_records_lots_total, which the exporter does not expose")
		caught(t, p, "docs/x.md:2: names metric probe:kafka_bench_produced_records:rate7m, which the exporter does not expose")
		caught(t, p, "docs/x.md:3: names config key kafka.tls.ca_fil, which the configuration does not have")
		caught(t, p, "docs/x.md:3: names config key capacity.step_durations, which the configuration does not have")
		if len(p) != 5 {
			t.Errorf("want exactly the five problems, got %q", p)
		}
	})
	t.Run("page left out of the README's map", func(t *testing.T) {
		d := edited(t, "README.md", "| [docs/capacity.md](docs/capacity.md) |", "| capacity |")
		caught(t, checkDocsMap(t, d, loadDocs(t)), "README.md:"+strconv.Itoa(lineOf(t, "README.md", "## Documentation"))+` (section "Documentation"): docs/capacity.md is not in the map of the docs: add a row [docs/capacity.md](docs/capacity.md)`)
	})
	t.Run("runbook_url points elsewhere", func(t *testing.T) {
		rules := []alerts.Rule{{File: "alerts.yml", Alert: "KafkaBenchRecordsLost",
			Annotations: map[string]string{"runbook_url": "https://example.com/README.md#kafkabenchrecordslost"}}}
		caught(t, checkRunbooks(loadDoc(t, runbooksPage), rules), "alerts/alerts.yml: alert KafkaBenchRecordsLost's runbook_url https://example.com/README.md does not point to docs/runbooks.md")
	})
	t.Run("runbook heading renamed", func(t *testing.T) {
		d := edited(t, runbooksPage, "## KafkaBenchRecordsLost\n", "## KafkaBenchRecordLost\n")
		p := d.CheckRunbooks(map[string]string{"KafkaBenchRecordsLost": "kafkabenchrecordslost"})
		caught(t, p, runbooksPage+":"+strconv.Itoa(lineOf(t, runbooksPage, "## KafkaBenchRecordsLost\n"))+": runbook KafkaBenchRecordLost is for no alert of alerts/: remove it or fix the name")
		caught(t, p, runbooksPage+": alert KafkaBenchRecordsLost links runbook anchor #kafkabenchrecordslost, which no heading has: add a heading ## KafkaBenchRecordsLost")
	})
	t.Run("runbook anchor that is not the heading's", func(t *testing.T) {
		p := loadDoc(t, runbooksPage).CheckRunbooks(map[string]string{"KafkaBenchRecordsLost": "records-lost"})
		caught(t, p, runbooksPage+": alert KafkaBenchRecordsLost links runbook anchor #records-lost, which no heading has: add a heading ## KafkaBenchRecordsLost")
	})
	t.Run("layout row removed", func(t *testing.T) {
		d := edited(t, layoutPage, "| `internal/testcerts` |", "| `internal/testcertz` |")
		p := d.CheckLayout(repoFiles(t), layoutIgnore)
		line := strconv.Itoa(lineOf(t, layoutPage, "| `internal/testcerts` |"))
		caught(t, p, layoutPage+":"+line+": internal/testcertz does not exist: remove it or fix the path")
		caught(t, p, layoutPage+":"+strconv.Itoa(lastRow(d))+": internal/testcerts/ is in the tree but not in the table: add a row (or name it in the row of its folder)")
	})
	t.Run("file added to the tree", func(t *testing.T) {
		d := loadDoc(t, layoutPage)
		p := d.CheckLayout(append(repoFiles(t), "scripts/warmup.sh", "probes/warmup.go"), layoutIgnore)
		caught(t, p, layoutPage+":"+strconv.Itoa(lastRow(d))+": scripts/warmup.sh is in the tree but not in the table: add a row (or name it in the row of its folder)")
		caught(t, p, layoutPage+":"+strconv.Itoa(lineOf(t, layoutPage, "| `probes/` |"))+": the row of probes/ lists its entries but not warmup.go")
	})
}

// lastRow is the line of the folder map's last row.
func lastRow(d *doccheck.Doc) int {
	last := 0
	for i, l := range d.Lines {
		switch {
		case strings.HasPrefix(l, "| folder |"):
			last = i + 1
		case last == i && strings.HasPrefix(l, "|"):
			last = i + 1
		}
	}
	return last
}

// metricDriftIsCaught: label references are held to the exposition of
// TestDocsMetricsAndAlerts (one embedded cluster), and so are rule labels.
func metricDriftIsCaught(t *testing.T, labels map[string]map[string]bool) {
	t.Run("runbook names a label the metric lacks", func(t *testing.T) {
		const ref = "`kafka_bench_client_request_duration_e2e_seconds` by `node_id`"
		d := edited(t, runbooksPage, ref, "`kafka_bench_client_request_duration_e2e_seconds` by broker")
		caught(t, d.CheckLabels(labels), runbooksPage+":"+strconv.Itoa(lineOf(t, runbooksPage, ref))+": names label broker on kafka_bench_client_request_duration_e2e_seconds, which has {"+
			strings.Join(slices.Sorted(maps.Keys(labels["kafka_bench_client_request_duration_e2e_seconds"])), ",")+"}")
	})
	t.Run("rule names a label its metrics lack", func(t *testing.T) {
		rules := []alerts.Rule{
			{File: "alerts.yml", Record: "kafka_bench:produced:rate5m", Expr: "sum by (job, instance, probe) (rate(kafka_bench_produced_records_total[5m]))"},
			{File: "alerts.yml", Alert: "Test", Expr: "kafka_bench:produced:rate5m{probe=\"x\"} < on (job, instance, broker) kafka_bench_probe_up",
				Annotations: map[string]string{"description": "{{ $labels.probe }} {{ $labels.topic }}"}},
		}
		p := checkRuleLabels(rules, labels)
		caught(t, p, "alerts/alerts.yml: rule Test names label broker, which none of [kafka_bench_probe_up kafka_bench_produced_records_total] has")
		caught(t, p, "alerts/alerts.yml: rule Test names label topic, which none of [kafka_bench_probe_up kafka_bench_produced_records_total] has")
		if len(p) != 2 {
			t.Errorf("want exactly the broker and topic problems, got %q", p)
		}
	})
}
