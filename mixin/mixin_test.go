package mixin

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/kafka-bench/kafka_bench_exporter/internal/promtest"
)

func render(t *testing.T, config string) *Output {
	t.Helper()
	o, err := Render(config)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func renderFails(t *testing.T, config, want string) {
	t.Helper()
	_, err := Render(config)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Render(%s) = %v, want an error with %q", config, err, want)
	}
}

func allRules(o *Output) []Rule {
	var out []Rule
	for _, g := range append(append([]RuleGroup{}, o.AlertGroups...), o.RuleGroups...) {
		out = append(out, g.Rules...)
	}
	return out
}

// checkRules runs promtool check rules on the rule files of o.
func checkRules(t *testing.T, o *Output) {
	t.Helper()
	promtool := promtest.Required(t).Promtool
	dir := t.TempDir()
	for name, b := range o.Rules {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(promtool, "check", "rules", AlertsFile, RecordingRulesFile)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("promtool check rules: %v\n%s", err, out)
	}
}

func TestThresholdMustBeABucket(t *testing.T) {
	renderFails(t, `{ latencySLOs+: { produce+: { groups: [{ name: 'default', probeMatcher: '', threshold: 0.3, objective: 0.999 }] } } }`,
		"_config.latencySLOs.produce.groups[0].threshold: 0.3 is not a bucket boundary of kafka_bench_produce_latency_seconds (one of 0.0005 0.001 0.0025 0.005 0.01 0.025 0.05 0.1 0.25 0.5 1 2.5 5 10 30)")
	renderFails(t, `{ latencySLOs+: { end_to_end+: { groups: [{ name: 'default', probeMatcher: '', threshold: '250ms', objective: 0.999 }] } } }`,
		"_config.latencySLOs.end_to_end.groups[0].threshold: want a number of seconds, got 250ms")
	renderFails(t, `{ availabilitySLOs+: { delivery+: { groups: [{ name: 'default', probeMatcher: '', window: 2, objective: 0.999 }] } } }`,
		"_config.availabilitySLOs.delivery.groups[0].window: 2 is not a bucket boundary of kafka_bench_end_to_end_latency_seconds")
	o := render(t, `{ latencySLOs+: { produce+: { groups: [{ name: 'default', probeMatcher: '', threshold: 0.5, objective: 0.99 }] } } }`)
	if !strings.Contains(string(o.Rules[RecordingRulesFile]), `kafka_bench_produce_latency_seconds_bucket{le="0.5"}`) ||
		!strings.Contains(string(o.Rules[RecordingRulesFile]), "vector(0.99)") {
		t.Errorf("a threshold of 0.5 and an objective of 0.99 do not reach the rules:\n%s", o.Rules[RecordingRulesFile])
	}
}

func TestBadSettings(t *testing.T) {
	renderFails(t, `{ alerts: { KafkaBenchNoSuchAlert: false } }`, "_config.alerts.KafkaBenchNoSuchAlert: no such alert")
	renderFails(t, `{ sloBaseWindow: '5 m' }`, "invalid duration 5 m")
	renderFails(t, `{ sloBaseWindow: '1h' }`, "sloBaseWindow 1h: must not be longer than any burn-rate window")
	renderFails(t, `{ latencySLOs+: { produce+: { groups: [
		{ name: 'a', probeMatcher: '', threshold: 0.1, objective: 0.999 },
		{ name: 'b', probeMatcher: 'x', threshold: 0.1, objective: 0.999 }] } } }`,
		"_config.latencySLOs.produce.groups[0].probeMatcher: empty (every probe) is only allowed on the last group")
	renderFails(t, `{ latencySLOs+: { produce+: { groups: [{ name: 'default', probeMatcher: '', threshold: 0.1, objective: 99.9 }] } } }`,
		"_config.latencySLOs.produce.groups[0].objective: want a ratio between 0 and 1 (exclusive), got 99.9")
}

func TestAlertSwitches(t *testing.T) {
	o := render(t, `{ alerts: { KafkaBenchLoadGeneratorSaturated: false, KafkaBenchProbeDown: true } }`)
	var names []string
	for _, g := range o.AlertGroups {
		if g.Name == "kafka_bench_load_generator" {
			t.Errorf("group %s kept without rules", g.Name)
		}
		for _, r := range g.Rules {
			names = append(names, r.Alert)
		}
	}
	if strings.Contains(strings.Join(names, " "), "KafkaBenchLoadGeneratorSaturated") || !strings.Contains(strings.Join(names, " "), "KafkaBenchProbeDown") {
		t.Errorf("alerts = %v: want KafkaBenchLoadGeneratorSaturated left out and KafkaBenchProbeDown kept", names)
	}
}

// labelRE finds the cluster label where PromQL or a template names it:
// in a label list, a matcher, or $labels.
var labelRE = regexp.MustCompile(`(\(|, )cluster[,)]|[{,] ?cluster=|\$labels\.cluster\b|\{\{cluster\}\}`)

func TestClusterLabel(t *testing.T) {
	def := render(t, "")
	o := render(t, `{ clusterLabel: 'kafka_cluster', jobSelector: 'job="kb"' }`)
	checkRules(t, o)
	for _, r := range allRules(def) {
		if labelRE.MatchString(r.Expr) {
			goto found
		}
	}
	t.Fatal("no rule of the default rendering names the cluster label: the test proves nothing")
found:
	for _, r := range allRules(o) {
		for _, s := range append([]string{r.Expr}, r.Annotations["description"]) {
			if m := labelRE.FindString(s); m != "" {
				t.Errorf("rule %s%s still names the cluster label (%q) with clusterLabel kafka_cluster: %s", r.Alert, r.Record, m, s)
			}
		}
		if strings.Contains(r.Expr, "kafka.?bench") {
			t.Errorf("rule %s keeps the default job selector: %s", r.Alert, r.Expr)
		}
	}
	if !strings.Contains(string(o.Rules[AlertsFile]), `up{job="kb"}`) {
		t.Error("the job selector does not reach KafkaBenchExporterDown")
	}
	for name, b := range o.Dashboards {
		var d any
		if err := yaml.Unmarshal(b, &d); err != nil {
			t.Fatal(err)
		}
		n := 0
		var walk func(v any, key string)
		walk = func(v any, key string) {
			switch v := v.(type) {
			case map[string]any:
				for k, x := range v {
					walk(x, k)
				}
			case []any:
				for _, x := range v {
					walk(x, key)
				}
			case string:
				if key == "expr" || key == "legendFormat" || key == "query" || key == "definition" {
					if m := labelRE.FindString(v); m != "" {
						t.Errorf("%s: %s %q still names the cluster label (%q)", name, key, v, m)
					}
					n += strings.Count(v, "kafka_cluster")
				}
			}
		}
		walk(d, "")
		if n == 0 {
			t.Errorf("%s: no query reads kafka_cluster", name)
		}
	}
}

func TestProbeGroups(t *testing.T) {
	o := render(t, `{ latencySLOs+: { end_to_end+: { groups: [
		{ name: 'follower', probeMatcher: 'follower-.*', threshold: 0.5, objective: 0.99 },
		{ name: 'other', probeMatcher: '', threshold: 0.25, objective: 0.999 }] } } }`)
	checkRules(t, o)
	rules := string(o.Rules[RecordingRulesFile])
	for _, want := range []string{
		`kafka_bench_end_to_end_latency_seconds_bucket{le="0.5", probe=~"follower-.*"}`,
		`kafka_bench_end_to_end_latency_seconds_bucket{le="0.25", probe!~"follower-.*"}`,
		`histogram_fraction(0, 0.5, sum by (cluster, job, instance, probe) (rate(kafka_bench_end_to_end_latency_seconds{probe=~"follower-.*"}[5m])))`,
	} {
		if !strings.Contains(rules, want) {
			t.Errorf("recording rules lack %s", want)
		}
	}
	objectives := 0
	for _, r := range allRules(o) {
		if r.Record == "kafka_bench:end_to_end_latency_slo_objective:ratio" {
			objectives++
			if r.Labels["slo_group"] == "" {
				t.Errorf("objective %s has no slo_group label", r.Expr)
			}
		}
	}
	if objectives != 2 {
		t.Errorf("%d end-to-end objectives, want one per group", objectives)
	}
	alerts := string(o.Rules[AlertsFile])
	for _, want := range []string{
		`probe:kafka_bench_end_to_end_latency_slo_errors:ratio_rate1h{probe=~"follower-.*"}`,
		`(14.4 * (1 - kafka_bench:end_to_end_latency_slo_objective:ratio{slo_group="follower"}))`,
		`probe:kafka_bench_end_to_end_latency_slo_errors:ratio_rate6h{probe!~"follower-.*"}`,
	} {
		if !strings.Contains(alerts, want) {
			t.Errorf("alerts lack %s", want)
		}
	}
}

func TestImportDashboards(t *testing.T) {
	o := render(t, "")
	if len(o.ImportDashboards) != len(o.Dashboards) {
		t.Fatalf("%d import dashboards for %d dashboards", len(o.ImportDashboards), len(o.Dashboards))
	}
	type dash struct {
		Inputs []struct {
			Name, Type string
			PluginID   string `yaml:"pluginId"`
		} `yaml:"__inputs"`
		Requires []struct{ Type, ID string } `yaml:"__requires"`
		Panels   []struct {
			Type   string
			Panels []struct{ Type string }
		}
		Templating struct {
			List []struct {
				Name, Type string
				Current    map[string]any
			}
		}
	}
	for name, b := range o.ImportDashboards {
		var d dash
		if err := yaml.Unmarshal(b, &d); err != nil {
			t.Fatal(err)
		}
		if len(d.Inputs) != 1 || d.Inputs[0].Type != "datasource" || d.Inputs[0].PluginID != "prometheus" || d.Inputs[0].Name != "DS_PROMETHEUS" {
			t.Errorf("%s: __inputs = %+v, want one Prometheus data source DS_PROMETHEUS", name, d.Inputs)
		}
		required := map[string]bool{}
		for _, r := range d.Requires {
			required[r.Type+"/"+r.ID] = true
		}
		for _, want := range []string{"grafana/grafana", "datasource/prometheus"} {
			if !required[want] {
				t.Errorf("%s: __requires lacks %s", name, want)
			}
		}
		for _, p := range d.Panels {
			for _, typ := range append([]string{p.Type}, func() (ts []string) {
				for _, q := range p.Panels {
					ts = append(ts, q.Type)
				}
				return
			}()...) {
				if typ != "row" && !required["panel/"+typ] {
					t.Errorf("%s: __requires lacks panel %s", name, typ)
				}
			}
		}
		found := false
		for _, v := range d.Templating.List {
			if v.Name == "datasource" {
				found = v.Type == "datasource" && v.Current["value"] == "${DS_PROMETHEUS}"
			}
		}
		if !found {
			t.Errorf("%s: the datasource variable does not default to ${DS_PROMETHEUS}", name)
		}
		// The provisioning copy is the same dashboard without the import parts.
		var imp, prov map[string]any
		if err := yaml.Unmarshal(b, &imp); err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(o.Dashboards[name], &prov); err != nil {
			t.Fatal(err)
		}
		if _, ok := prov["__inputs"]; ok {
			t.Errorf("%s: the provisioning copy has __inputs", name)
		}
		if !strings.Contains(string(o.Dashboards[name]), `"uid": "${datasource}"`) || strings.Contains(string(o.Dashboards[name]), "DS_PROMETHEUS") {
			t.Errorf("%s: the provisioning copy does not read ${datasource} alone", name)
		}
		delete(imp, "__inputs")
		delete(imp, "__requires")
		delete(imp, "templating")
		delete(prov, "templating")
		if len(imp) != len(prov) {
			t.Errorf("%s: the import copy has %d fields besides __inputs, __requires and templating, the provisioning copy %d", name, len(imp), len(prov))
		}
	}
}

// dashboardQuery is one PromQL text of a rendered dashboard: a panel
// target's expr and legend, an annotation's expr or a variable's query.
type dashboardQuery struct {
	where, expr, legend string
}

// dashboardQueries returns every query of the dashboard b.
func dashboardQueries(t *testing.T, b []byte) []dashboardQuery {
	t.Helper()
	var d struct {
		Panels []struct {
			Title   string
			Targets []struct {
				RefID        string `json:"refId"`
				Expr         string
				LegendFormat string `json:"legendFormat"`
			}
		}
		Annotations struct{ List []struct{ Name, Expr string } }
		Templating  struct {
			List []struct {
				Name, Type string
				Definition string
			}
		}
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	var out []dashboardQuery
	for _, p := range d.Panels {
		for _, tg := range p.Targets {
			out = append(out, dashboardQuery{p.Title + "/" + tg.RefID, tg.Expr, tg.LegendFormat})
		}
	}
	for _, a := range d.Annotations.List {
		out = append(out, dashboardQuery{"annotation " + a.Name, a.Expr, ""})
	}
	for _, v := range d.Templating.List {
		if v.Type == "query" {
			out = append(out, dashboardQuery{"variable " + v.Name, v.Definition, ""})
		}
	}
	return out
}

var (
	selectorRE = regexp.MustCompile(`\{[^{}]*\}`)
	groupRE    = regexp.MustCompile(`\b(?:by|on) \(([^)]*)\)`)
	legendRE   = regexp.MustCompile(`\{\{[^}]*\}\}`)
)

// TestDashboardsFollowConfig renders the dashboards with another cluster
// label and job selector: every selector of the exporter's series holds the
// job selector, every aggregation keeps the cluster label, every legend
// that names series names it.
func TestDashboardsFollowConfig(t *testing.T) {
	for _, config := range []string{
		`{ clusterLabel: 'kafka_cluster', jobSelector: 'job="kb"' }`,
		`{ clusterLabel: 'kafka_cluster', jobSelector: 'job="kb"', dashboardsUseRecordingRules: true }`,
	} {
		o := render(t, config)
		for _, name := range Names(o.Dashboards) {
			qs := dashboardQueries(t, o.Dashboards[name])
			if len(qs) < 20 {
				t.Fatalf("%s: %d queries", name, len(qs))
			}
			for _, q := range qs {
				where := fmt.Sprintf("%s %s: %s", config, name, q.where)
				for _, sel := range selectorRE.FindAllString(q.expr, -1) {
					// The broker hosts' series are node_exporter's, of other jobs.
					if strings.Contains(sel, "$host_job") || sel == "{host_metrics}" {
						continue
					}
					if !strings.Contains(sel, `job="kb"`) {
						t.Errorf("%s: selector %s lacks the job selector job=\"kb\": %s", where, sel, q.expr)
					}
					// A variable may list every cluster; a panel reads the selected.
					if !strings.HasPrefix(q.where, "variable ") && !strings.Contains(sel, "kafka_cluster=~") {
						t.Errorf("%s: selector %s does not select clusters by kafka_cluster: %s", where, sel, q.expr)
					}
				}
				for _, m := range groupRE.FindAllStringSubmatch(q.expr, -1) {
					// CPU by mode divides by the CPU count of the same job and instance.
					if !strings.Contains(m[1], "kafka_cluster") && m[1] != "job, instance" {
						t.Errorf("%s: %q does not keep kafka_cluster: %s", where, m[0], q.expr)
					}
				}
				if strings.HasPrefix(q.expr, "label_values(") && !strings.Contains(q.expr, "${host_metrics}") && !strings.Contains(q.expr, `job="kb"`) {
					t.Errorf("%s: %s lacks the job selector", where, q.expr)
				}
				if l := legendRE.FindString(q.legend); l != "" && l != "{{le}}" && !strings.HasPrefix(q.legend, "{{kafka_cluster}} ") {
					t.Errorf("%s: legend %q does not name the cluster by kafka_cluster", where, q.legend)
				}
			}
		}
	}
}

// recordedRulesRead are the recording rules the dashboards read with
// dashboardsUseRecordingRules.
var recordedRulesRead = regexp.MustCompile(`probe:kafka_bench_[a-z_]+:(rate1m|rate5m|p[0-9]+_5m)\b`)

// TestDashboardsUseRecordingRules: with dashboardsUseRecordingRules the
// provisioning dashboards read the throughput and latency rules, every one
// of them a rule of the rendering; without it, and in the import copies
// always, they read the raw series. A dashboard stays the same only when it
// reads none of the series those rules hold (the consumer groups').
func TestDashboardsUseRecordingRules(t *testing.T) {
	off := render(t, "")
	on := render(t, `{ dashboardsUseRecordingRules: true }`)
	records := map[string]bool{}
	for _, r := range allRules(on) {
		records[r.Record] = true
	}
	read := map[string]bool{}
	var same []string
	for _, name := range Names(on.Dashboards) {
		if bytes.Equal(on.Dashboards[name], off.Dashboards[name]) {
			same = append(same, name)
		}
		if !bytes.Equal(on.ImportDashboards[name], off.ImportDashboards[name]) {
			t.Errorf("%s: the import copy changes with dashboardsUseRecordingRules", name)
		}
		for _, q := range dashboardQueries(t, off.Dashboards[name]) {
			if m := recordedRulesRead.FindString(q.expr); m != "" {
				t.Errorf("%s %s reads %s without dashboardsUseRecordingRules", name, q.where, m)
			}
		}
		for _, q := range dashboardQueries(t, on.Dashboards[name]) {
			for _, m := range recordedRulesRead.FindAllString(q.expr, -1) {
				read[m] = true
				if !records[m] {
					t.Errorf("%s %s reads %s, no recording rule", name, q.where, m)
				}
				if strings.Contains(q.expr, "$__rate_interval") {
					t.Errorf("%s %s reads %s and the raw series: %s", name, q.where, m, q.expr)
				}
			}
		}
	}
	// probe:kafka_bench_produced_records:rate1m holds kafka_bench_produced_records_total.
	for _, name := range same {
		for _, q := range dashboardQueries(t, off.Dashboards[name]) {
			for r := range read {
				if base := strings.Split(r, ":")[1]; strings.Contains(q.expr, base) {
					t.Errorf("%s: the same with and without dashboardsUseRecordingRules, and %s reads %s, which %s holds", name, q.where, base, r)
				}
			}
		}
	}
	if len(same) == len(on.Dashboards) {
		t.Error("no dashboard changes with dashboardsUseRecordingRules")
	}
	for _, want := range []string{
		"probe:kafka_bench_produced_records:rate1m", "probe:kafka_bench_consumed_bytes:rate1m",
		"probe:kafka_bench_produce_latency_seconds:p999_5m", "probe:kafka_bench_end_to_end_latency_seconds:p99_5m",
		"probe:kafka_bench_produce_failed:rate5m",
	} {
		if !read[want] {
			t.Errorf("no dashboard reads %s with dashboardsUseRecordingRules", want)
		}
	}
}

// TestEveryRecordingRuleIsRead: a recording rule is read by an alert,
// another rule, a dashboard (with dashboardsUseRecordingRules) or the
// users docs/migrating.md points to it.
func TestEveryRecordingRuleIsRead(t *testing.T) {
	o := render(t, `{ dashboardsUseRecordingRules: true }`)
	migrating, err := os.ReadFile("../docs/migrating.md")
	if err != nil {
		t.Fatal(err)
	}
	var readers strings.Builder
	readers.Write(migrating)
	for _, r := range allRules(o) {
		readers.WriteString("\n" + r.Expr)
	}
	for _, b := range o.Dashboards {
		readers.Write(b)
	}
	text := readers.String()
	for _, r := range allRules(o) {
		if r.Record == "" {
			continue
		}
		if !regexp.MustCompile(regexp.QuoteMeta(r.Record) + `\b`).MatchString(text) {
			t.Errorf("recording rule %s is read by no alert, rule or dashboard, nor named in docs/migrating.md", r.Record)
		}
	}
}
