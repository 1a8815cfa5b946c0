package main

import (
	"maps"
	"os"
	"strings"
	"testing"

	"github.com/kafka-bench/kafka_bench_exporter/alerts"
	"github.com/kafka-bench/kafka_bench_exporter/exporter/configwatch"
	"github.com/kafka-bench/kafka_bench_exporter/internal/readme"
	"github.com/kafka-bench/kafka_bench_exporter/probes"
)

// edited is README.md with old replaced by new (which must occur once).
func edited(t *testing.T, old, new string) *readme.Doc {
	t.Helper()
	data, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), old); n != 1 {
		t.Fatalf("README.md holds %q %d times, want once", old, n)
	}
	return readme.Parse("README.md", strings.Replace(string(data), old, new, 1))
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

// The drift checks fail when either side changes alone: a README row or a
// program flag, key or metric.
func TestReadmeDriftIsCaught(t *testing.T) {
	flags := commandFlags(t, "run")
	flagTable := func(d *readme.Doc) *readme.Table { return table(t, d, "Command line", "flag") }
	t.Run("flag row removed", func(t *testing.T) {
		d := edited(t, "| `--probe.topic` | `kafka-bench-default` | topic of the default probe |\n", "")
		caught(t, readme.CheckFlags(flagTable(d), flags), "--probe.topic", "is not documented", "README.md:")
	})
	t.Run("flag default changed in README", func(t *testing.T) {
		d := edited(t, "| `--probe.rate` | 100 |", "| `--probe.rate` | 1000 |")
		caught(t, readme.CheckFlags(flagTable(d), flags), "--probe.rate default documented as \"1000\"")
	})
	t.Run("flag added to the program", func(t *testing.T) {
		more := append(flags[:len(flags):len(flags)], readme.Flag{Name: "probe.new-thing", Default: "7"})
		caught(t, readme.CheckFlags(flagTable(loadReadme(t)), more), "--probe.new-thing", "not documented")
	})
	t.Run("bench flag added to the program", func(t *testing.T) {
		bench := commandFlags(t, "bench")
		more := append(bench[:len(bench):len(bench)], readme.Flag{Name: "bench.extra"})
		caught(t, readme.CheckFlags(table(t, loadReadme(t), "One-shot bench mode", "flag"), more), "--bench.extra", "One-shot bench mode")
	})
	t.Run("flag documented that the program lacks", func(t *testing.T) {
		d := edited(t, "| `--version` |", "| `--probe.gone` | | |\n| `--version` |")
		caught(t, readme.CheckFlags(flagTable(d), flags), "documents --probe.gone")
	})

	keys := configKeys(t)
	keyTable := func(d *readme.Doc) *readme.Table { return table(t, d, "Keys, defaults and ranges", "key") }
	subst := map[string]string{"<name>": readmeProbe}
	t.Run("key default changed in README", func(t *testing.T) {
		d := edited(t, "| `producer.linger.ms` | 5 |", "| `producer.linger.ms` | 10 |")
		caught(t, readme.CheckKeys(keyTable(d), keys, subst), "producer.linger.ms default documented as \"10\"")
	})
	t.Run("key default changed in the program", func(t *testing.T) {
		changed := maps.Clone(keys)
		changed["probes[].lag_interval"] = "10s"
		caught(t, readme.CheckKeys(keyTable(loadReadme(t)), changed, subst), "lag_interval", "\"10s\"")
	})
	t.Run("key added to the program", func(t *testing.T) {
		more := maps.Clone(keys)
		more["probes[].warmup_records"] = "1000"
		caught(t, readme.CheckKeys(keyTable(loadReadme(t)), more, subst), "probes[].warmup_records", "not documented")
	})
	t.Run("key row removed", func(t *testing.T) {
		d := edited(t, "| `consumer.max.poll.records` | 500 | ≥ 1 |\n", "")
		caught(t, readme.CheckKeys(keyTable(d), keys, subst), "max.poll.records", "not documented")
	})
	t.Run("key documented that the configuration lacks", func(t *testing.T) {
		d := edited(t, "| `host.enabled` | true |", "| `host.enabld` | true |")
		caught(t, readme.CheckKeys(keyTable(d), keys, subst), "documents key host.enabld")
	})
	t.Run("link to a heading that moved", func(t *testing.T) {
		d := edited(t, "[Always-on cost](BENCHMARKS.md#always-on-cost):", "[Always-on cost](BENCHMARKS.md#always-on-cost-same-run):")
		caught(t, d.CheckLinks(repoRoot), "BENCHMARKS.md has no heading with anchor #always-on-cost")
	})
	t.Run("failure reason added to the program", func(t *testing.T) {
		more := append(probes.FailureReasons[:len(probes.FailureReasons):len(probes.FailureReasons)], "quota")
		caught(t, checkReasons(t, loadReadme(t), more), "the program's are", "quota")
	})
	t.Run("numeric setting removed from README", func(t *testing.T) {
		d := edited(t, "`num.partitions`, ", "")
		caught(t, checkNumericSettings(t, d, configwatch.ValueAllowList), "numeric settings")
		caught(t, checkNumericSettings(t, loadReadme(t), configwatch.ValueAllowList[1:]), "brokers × 22 series")
	})
	t.Run("unescaped pipe in a cell", func(t *testing.T) {
		d := edited(t, "`^(eth\\|en\\|lo)`", "`^(eth|en|lo)`")
		caught(t, readme.CheckKeys(keyTable(d), keys, subst), "escape |")
	})
}

// metricDriftIsCaught: metrics, runbooks, rule labels and layout drift is
// caught too, on the exposition of TestReadmeMetricsAndAlerts (one
// embedded cluster for both) and the real tree.
func metricDriftIsCaught(t *testing.T, fams map[string]readme.Family) {
	metricTable := func(d *readme.Doc) *readme.Table { return table(t, d, "Metrics", "metric") }
	t.Run("metric renamed in README", func(t *testing.T) {
		d := edited(t, "| `kafka_bench_records_foreign_total` |", "| `kafka_bench_records_alien_total` |")
		p := readme.CheckMetrics(metricTable(d), fams)
		caught(t, p, "documents kafka_bench_records_alien_total")
		caught(t, p, "kafka_bench_records_foreign_total", "not documented")
	})
	t.Run("metric added to the exporter", func(t *testing.T) {
		more := maps.Clone(fams)
		more["kafka_bench_warmup_records_total"] = readme.Family{Type: "gauge", Labels: map[string]bool{"probe": true}}
		caught(t, readme.CheckMetrics(metricTable(loadReadme(t)), more), "kafka_bench_warmup_records_total", "not documented")
	})
	t.Run("metric type changed in the exporter", func(t *testing.T) {
		changed := maps.Clone(fams)
		f := changed["kafka_bench_send_delay_seconds"]
		changed["kafka_bench_send_delay_seconds"] = readme.Family{Type: "summary", Labels: f.Labels}
		caught(t, readme.CheckMetrics(metricTable(loadReadme(t)), changed), "kafka_bench_send_delay_seconds is documented as a histogram")
	})
	t.Run("label added in the exporter", func(t *testing.T) {
		changed := maps.Clone(fams)
		f := changed["kafka_bench_records_lost_total"]
		labels := maps.Clone(f.Labels)
		labels["partition"] = true
		changed["kafka_bench_records_lost_total"] = readme.Family{Type: f.Type, Labels: labels}
		caught(t, readme.CheckMetrics(metricTable(loadReadme(t)), changed), "kafka_bench_records_lost_total has label partition")
	})
	t.Run("label named in README that the metric lacks", func(t *testing.T) {
		d := edited(t, "`kafka_bench_produce_failed_total{reason}`", "`kafka_bench_produce_failed_total{cause}`")
		caught(t, readme.CheckMetrics(metricTable(d), fams), "with label cause")
	})
	t.Run("runbook names a label the metric lacks", func(t *testing.T) {
		d := edited(t, "`kafka_bench_client_request_duration_e2e_seconds` by `node_id`", "`kafka_bench_client_request_duration_e2e_seconds` by broker")
		caught(t, d.CheckRefs(d.All(), fams), "names label broker on kafka_bench_client_request_duration_e2e_seconds")
	})
	t.Run("runbook heading renamed", func(t *testing.T) {
		d := edited(t, "#### KafkaBenchRecordsLost\n", "#### KafkaBenchRecordLost\n")
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
		d := edited(t, "| `internal/testcerts` |", "| `internal/testcertz` |")
		p := readme.CheckLayout(table(t, d, "Layout", "folder"), repoFiles(t), layoutIgnore)
		caught(t, p, "internal/testcertz does not exist")
		caught(t, p, "internal/testcerts/ is in the tree but not in the table")
	})
	t.Run("file added to the tree", func(t *testing.T) {
		files := append(repoFiles(t), "scripts/warmup.sh", "probes/warmup.go")
		p := readme.CheckLayout(table(t, loadReadme(t), "Layout", "folder"), files, layoutIgnore)
		caught(t, p, "scripts/warmup.sh is in the tree")
		caught(t, p, "probes/ lists its entries but not warmup.go")
	})
}
