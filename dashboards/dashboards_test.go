package dashboards

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/kafka-bench/kafka_bench_exporter/alerts"
	"github.com/kafka-bench/kafka_bench_exporter/probes"
)

// upcomingMetrics may be used in annotation queries before the exporter
// exports them (a missing series just draws no annotation). Panels must not
// use them. Empty while every metric an annotation uses is exported.
var upcomingMetrics = map[string]bool{}

const metricNamesFile = "../exporter/testdata/metric_names.txt"

// testVars are the variable values used to expand queries for linting.
var testVars = map[string]string{"probe_a": "probe-a", "probe_b": "probe-b", "group": "group-a"}

// builtinVars are Grafana's global variables the dashboards may use.
var builtinVars = map[string]bool{"__rate_interval": true, "__interval": true, "__range": true}

var wantDashboards = map[string]struct {
	uid, title string
	vars       []string
}{
	"kafka-bench-overview.json": {OverviewUID, "Kafka Bench / Overview", []string{"datasource", "cluster", "job", "instance", "probe"}},
	"kafka-bench-compare.json":  {CompareUID, "Kafka Bench / Compare", []string{"datasource", "job", "instance", "cluster_a", "probe_a", "cluster_b", "probe_b", "compare_offset"}},
	"kafka-bench-groups.json":   {GroupsUID, "Kafka Bench / Consumer groups", []string{"datasource", "cluster", "job", "instance", "group"}},
}

// known holds the names a query may reference.
type known struct {
	metrics    map[string]bool // metric family names (metric_names.txt)
	recordings map[string]bool // recording rule names (../alerts)
	upcoming   map[string]bool // upcomingMetrics
}

func (k known) has(name string, annotation bool) bool {
	if k.metrics[name] || k.recordings[name] || (annotation && k.upcoming[name]) {
		return true
	}
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		if base, ok := strings.CutSuffix(name, suffix); ok && k.metrics[base] {
			return true
		}
	}
	return false
}

// matchesAny reports whether re matches a known metric or recording rule.
func (k known) matchesAny(re *regexp.Regexp) bool {
	for _, set := range []map[string]bool{k.metrics, k.recordings} {
		for n := range set {
			if re.MatchString(n) {
				return true
			}
		}
	}
	return false
}

func loadKnown(t *testing.T) known {
	t.Helper()
	f, err := os.Open(metricNamesFile)
	if err != nil {
		t.Fatalf("metric names: %v", err)
	}
	defer func() { _ = f.Close() }() // opened for reading: nothing to lose
	k := known{metrics: map[string]bool{}, recordings: map[string]bool{}, upcoming: upcomingMetrics}
	s := bufio.NewScanner(f)
	for s.Scan() {
		if line := strings.TrimSpace(s.Text()); line != "" {
			k.metrics[line] = true
		}
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	if len(k.metrics) == 0 {
		t.Fatalf("%s is empty", metricNamesFile)
	}
	records, err := alerts.RecordingRuleNames()
	if err != nil {
		t.Fatalf("recording rules: %v", err)
	}
	if len(records) == 0 {
		t.Fatal("no recording rules found in ../alerts")
	}
	for _, r := range records {
		k.recordings[r] = true
	}
	return k
}

var (
	strLitRE   = regexp.MustCompile(`"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|` + "`[^`]*`")
	bracesRE   = regexp.MustCompile(`\{[^{}]*\}`)
	groupingRE = regexp.MustCompile(`\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^()]*\)`)
	rangeRE    = regexp.MustCompile(`\[[^\[\]]*\]`)
	offsetRE   = regexp.MustCompile(`\boffset\s+-?[0-9A-Za-z_]+`)
	numberRE   = regexp.MustCompile(`(^|[^A-Za-z0-9_:.])(?:0[xX][0-9a-fA-F]+|[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)`)
	identRE    = regexp.MustCompile(`[A-Za-z_:][A-Za-z0-9_:]*`)
	callRE     = regexp.MustCompile(`^\s*\(`)
	keywords   = map[string]bool{
		"and": true, "or": true, "unless": true, "by": true, "without": true, "on": true, "ignoring": true,
		"group_left": true, "group_right": true, "offset": true, "bool": true, "inf": true, "nan": true,
	}
	labelValuesRE = regexp.MustCompile(`^\s*label_values\(\s*(.*?)\s*,\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)\s*$`)
	nameMatcherRE = regexp.MustCompile(`__name__\s*=~\s*"((?:[^"\\]|\\.)*)"`)
	varRefRE      = regexp.MustCompile(`\$\{([A-Za-z0-9_]+)(?::[^}]*)?\}|\$([A-Za-z0-9_]+)|\[\[([A-Za-z0-9_]+)(?::[^\]]*)?\]\]`)
)

// variableMetrics are the series a query variable may draw its values
// from: the probes' settings, the consumer groups and their collector
// (an exporter of no probe exports these alone), and the broker hosts'
// CPU time.
var variableMetrics = []string{"kafka_bench_probe_info", "kafka_bench_group_info", "kafka_bench_group_poll_success", "${host_metrics}_cpu_seconds_total"}

// metricNames returns the metric names an expression references: the
// identifiers left after removing string literals, label matchers, grouping
// clauses, range/subquery brackets, offsets and numbers, which are neither
// function calls nor keywords.
func metricNames(expr string) []string {
	s := strLitRE.ReplaceAllString(expr, `""`)
	s = bracesRE.ReplaceAllString(s, " ")
	s = groupingRE.ReplaceAllString(s, " ")
	s = rangeRE.ReplaceAllString(s, " ")
	s = offsetRE.ReplaceAllString(s, " ")
	s = numberRE.ReplaceAllString(s, "$1 ")
	seen := map[string]bool{}
	var out []string
	for _, loc := range identRE.FindAllStringIndex(s, -1) {
		id := s[loc[0]:loc[1]]
		if keywords[strings.ToLower(id)] || callRE.MatchString(s[loc[1]:]) || seen[id] {
			continue
		}
		seen[id] = true
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

func TestMetricNames(t *testing.T) {
	for _, c := range []struct {
		expr string
		want []string
	}{
		{`sum by (le, probe) (rate(kafka_bench_produce_latency_seconds_bucket{job=~"a|b", le="0.1"}[5m] offset 1d))`,
			[]string{"kafka_bench_produce_latency_seconds_bucket"}},
		{`histogram_quantile(0.99, sum(rate(x_bucket[1m])) by (le))`, []string{"x_bucket"}},
		{`a / on (job, instance) group_left () b > 1e3 and c unless d or vector(1)`, []string{"a", "b", "c", "d"}},
		{`1 - probe:foo:ratio_rate5m > bool 0.5`, []string{"probe:foo:ratio_rate5m"}},
		{`count_values("value", up)`, []string{"up"}},
		{`sum without (mode) (rate(x{mode!="idle"}[5m:1m])) + Inf - NaN`, []string{"x"}},
		{`max_over_time(foo[1h] offset -2m) * 2.5e-3`, []string{"foo"}},
		{`kafka_bench_probe_info{probe="p1"} unless kafka_bench_probe_info offset 2m`, []string{"kafka_bench_probe_info"}},
	} {
		if got := metricNames(c.expr); !reflect.DeepEqual(got, c.want) {
			t.Errorf("metricNames(%q) = %q, want %q", c.expr, got, c.want)
		}
	}
}

var wantDatasource = map[string]any{"type": "prometheus", "uid": "${datasource}"}

// lintDashboard checks one dashboard file and returns its problems.
func lintDashboard(file string, raw []byte, k known) []string {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	var d map[string]any
	if err := json.Unmarshal(raw, &d); err != nil {
		return []string{"invalid JSON: " + err.Error()}
	}
	if want, ok := wantDashboards[file]; ok {
		if d["uid"] != want.uid {
			bad("uid %v, want %s", d["uid"], want.uid)
		}
		if d["title"] != want.title {
			bad("title %v, want %s", d["title"], want.title)
		}
	} else if uid, _ := d["uid"].(string); uid == "" {
		bad("no uid")
	}
	if v, _ := d["schemaVersion"].(float64); v < 38 {
		bad("schemaVersion %v, want >= 38", d["schemaVersion"])
	}
	for _, key := range []string{"__inputs", "__requires"} {
		if _, ok := d[key]; ok {
			bad("has %s (not provisioning-ready)", key)
		}
	}
	if tags, _ := d["tags"].([]any); len(tags) == 0 {
		bad("no tags")
	}

	// Every datasource reference anywhere is the ${datasource} variable.
	var walkDS func(path string, v any)
	walkDS = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for key, child := range v {
				if key == "datasource" && !reflect.DeepEqual(child, wantDatasource) {
					bad("%s.datasource = %v, want %v", path, child, wantDatasource)
				}
				walkDS(path+"."+key, child)
			}
		case []any:
			for i, child := range v {
				walkDS(fmt.Sprintf("%s[%d]", path, i), child)
			}
		}
	}
	walkDS("", d)

	// Template variables.
	defined := map[string]bool{}
	for n := range builtinVars {
		defined[n] = true
	}
	templating, _ := d["templating"].(map[string]any)
	vars, _ := templating["list"].([]any)
	for _, v := range vars {
		v, _ := v.(map[string]any)
		name, _ := v["name"].(string)
		defined[name] = true
		switch v["type"] {
		case "datasource":
			if name != "datasource" || v["query"] != "prometheus" {
				bad("datasource variable %q must be named datasource with query prometheus", name)
			}
		case "query":
			q := v["query"]
			if m, ok := q.(map[string]any); ok {
				q = m["query"]
			}
			qs, _ := q.(string)
			m := labelValuesRE.FindStringSubmatch(qs)
			if m == nil || !slices.ContainsFunc(variableMetrics, func(v string) bool { return m[1] == v || strings.HasPrefix(m[1], v+"{") }) {
				bad("variable %s: query %q is not label_values(<one of %s>{...}, label)", name, qs, strings.Join(variableMetrics, ", "))
				continue
			}
			metric, err := Substitute(m[1], testVars)
			if err != nil {
				bad("variable %s: %v", name, err)
				continue
			}
			for _, n := range metricNames(metric) {
				if !k.has(n, false) {
					bad("variable %s: unknown metric %s", name, n)
				}
			}
		case "custom":
			if name == "compare_offset" && v["query"] != "1h,1d,7d" {
				bad("compare_offset options %v, want 1h,1d,7d", v["query"])
			}
		}
	}
	if want, ok := wantDashboards[file]; ok {
		for _, n := range want.vars {
			if !defined[n] {
				bad("missing template variable %s", n)
			}
		}
	}
	checkVarRefs := func(where, s string) {
		for _, m := range varRefRE.FindAllStringSubmatch(s, -1) {
			if n := m[1] + m[2] + m[3]; !defined[n] {
				bad("%s: undefined variable $%s", where, n)
			}
		}
	}
	checkExpr := func(where, expr string, annotation bool) {
		checkVarRefs(where, expr)
		expanded, err := Substitute(expr, testVars)
		if err != nil {
			bad("%s: %v", where, err)
			return
		}
		names := metricNames(expanded)
		// {__name__=~"re"} selects the metrics re matches: at least one
		// must be known.
		for _, m := range nameMatcherRE.FindAllStringSubmatch(expanded, -1) {
			re, err := regexp.Compile("^(?:" + m[1] + ")$")
			if err != nil {
				bad("%s: __name__ regex %q: %v", where, m[1], err)
				continue
			}
			if !k.matchesAny(re) {
				bad("%s: __name__=~%q matches no known metric", where, m[1])
			}
			names = append(names, "")
		}
		if len(names) == 0 && !strings.Contains(expanded, "vector(") {
			bad("%s: no metric in %q", where, expr)
		}
		for _, n := range names {
			if n != "" && !k.has(n, annotation) {
				bad("%s: unknown metric %s (not in %s, not a recording rule in ../alerts)", where, n, metricNamesFile)
			}
		}
	}

	// Panels.
	ids := map[float64]string{}
	var walkPanels func(panels []any)
	walkPanels = func(panels []any) {
		for _, p := range panels {
			p, _ := p.(map[string]any)
			title, _ := p["title"].(string)
			where := fmt.Sprintf("panel %q", title)
			id, ok := p["id"].(float64)
			if !ok || id <= 0 {
				bad("%s: missing id", where)
			} else if other, dup := ids[id]; dup {
				bad("%s: duplicate panel id %v (also %q)", where, id, other)
			} else {
				ids[id] = title
			}
			if _, ok := p["gridPos"].(map[string]any); !ok {
				bad("%s: no gridPos", where)
			}
			checkVarRefs(where, title)
			if p["type"] == "row" {
				if sub, ok := p["panels"].([]any); ok {
					walkPanels(sub)
				}
				continue
			}
			if title == "" {
				bad("panel %v has no title", p["id"])
			}
			fc, _ := p["fieldConfig"].(map[string]any)
			defaults, _ := fc["defaults"].(map[string]any)
			if unit, _ := defaults["unit"].(string); unit == "" {
				bad("%s: fieldConfig.defaults.unit is not set", where)
			}
			if _, ok := p["datasource"]; !ok {
				bad("%s: no datasource", where)
			}
			targets, _ := p["targets"].([]any)
			if len(targets) == 0 {
				bad("%s: no targets", where)
			}
			refs := map[string]bool{}
			for _, t := range targets {
				t, _ := t.(map[string]any)
				ref, _ := t["refId"].(string)
				if ref == "" || refs[ref] {
					bad("%s: missing or duplicate refId %q", where, ref)
				}
				refs[ref] = true
				if _, ok := t["datasource"]; !ok {
					bad("%s/%s: no datasource", where, ref)
				}
				expr, _ := t["expr"].(string)
				if strings.TrimSpace(expr) == "" {
					bad("%s/%s: empty expr", where, ref)
					continue
				}
				if legend, ok := t["legendFormat"].(string); ok {
					checkVarRefs(where, legend)
				}
				switch p["type"] {
				case "heatmap":
					if t["format"] != "heatmap" {
						bad("%s/%s: heatmap target needs format heatmap", where, ref)
					}
				case "table":
					if t["format"] != "table" || t["instant"] != true {
						bad("%s/%s: table target needs format table and instant", where, ref)
					}
				}
				checkExpr(where+"/"+ref, expr, false)
				for _, p := range fleetProblems(expr) {
					bad("%s/%s: %s", where, ref, p)
				}
			}
			if title == "Produce failures by reason" {
				desc, _ := p["description"].(string)
				if want := "by reason (" + strings.Join(probes.FailureReasons, ", ") + ")"; !strings.Contains(desc, want) {
					bad("%s: description must list the reasons the probes emit, %q: %q", where, want, desc)
				}
			}
			if unit, _ := defaults["unit"].(string); unit == "none" && p["type"] == "timeseries" {
				bad("%s: unit none on a time series", where)
			}
		}
	}
	panels, _ := d["panels"].([]any)
	if len(panels) == 0 {
		bad("no panels")
	}
	walkPanels(panels)

	// Annotations.
	annotations, _ := d["annotations"].(map[string]any)
	list, _ := annotations["list"].([]any)
	names := map[string]string{}
	for _, a := range list {
		a, _ := a.(map[string]any)
		name, _ := a["name"].(string)
		expr, _ := a["expr"].(string)
		names[name] = expr
		if strings.TrimSpace(expr) == "" {
			bad("annotation %q: no expr", name)
			continue
		}
		checkExpr(fmt.Sprintf("annotation %q", name), expr, true)
	}
	// The info gauges are always 1: only the changes counters show a change.
	if e := names["Broker config change"]; !strings.Contains(e, "kafka_bench_broker_config_changes_total") {
		bad("annotation \"Broker config change\" missing or not on kafka_bench_broker_config_changes_total: %q", e)
	}
	if e := names["Topic config change"]; !strings.Contains(e, "kafka_bench_topic_config_changes_total") {
		bad("annotation \"Topic config change\" missing or not on kafka_bench_topic_config_changes_total: %q", e)
	}
	if e := names["Broker restart"]; !strings.Contains(e, "kafka_bench_broker_restarts_total") {
		bad("annotation \"Broker restart\" missing or not on kafka_bench_broker_restarts_total: %q", e)
	}
	if e := names["Broker release change"]; !strings.Contains(e, "kafka_bench_broker_version_changes_total") {
		bad("annotation \"Broker release change\" missing or not on kafka_bench_broker_version_changes_total: %q", e)
	}
	probeInfo := false
	for _, e := range names {
		probeInfo = probeInfo || strings.Contains(e, "kafka_bench_probe_info")
	}
	if !probeInfo {
		bad("no annotation on kafka_bench_probe_info (probe settings change)")
	}
	return problems
}

var (
	byRE        = regexp.MustCompile(`\bby \(([^)]*)\)`)
	bareAggRE   = regexp.MustCompile(`\b(sum|min|max|avg|count|topk|bottomk|quantile)\s*\(`)
	bucketSelRE = regexp.MustCompile(`\b([a-z_:]+)_bucket\{`)
)

// fleetProblems reports what makes a query wrong on a fleet: an aggregation
// that drops cluster or instance (two clusters' exporters summed into one
// line), and a classic-bucket quantile with no native-histogram twin (empty
// on a Prometheus that ingests native histograms only).
func fleetProblems(expr string) []string {
	var out []string
	if m := bareAggRE.FindString(expr); m != "" {
		out = append(out, fmt.Sprintf("%q aggregates without by (...): clusters would be added together", m))
	}
	for _, m := range byRE.FindAllStringSubmatch(expr, -1) {
		labels := map[string]bool{}
		for l := range strings.SplitSeq(m[1], ",") {
			labels[strings.TrimSpace(l)] = true
		}
		if !labels["cluster"] || !labels["instance"] {
			out = append(out, fmt.Sprintf("%q drops cluster or instance: clusters would be added together", m[0]))
		}
	}
	for _, m := range bucketSelRE.FindAllStringSubmatch(expr, -1) {
		if !strings.Contains(expr, m[1]+"{") || !strings.Contains(expr, " or ") {
			out = append(out, fmt.Sprintf("%s_bucket has no native-histogram form (%s{...} or ...): empty with native histograms only", m[1], m[1]))
		}
	}
	return out
}

func TestFleetProblems(t *testing.T) {
	for _, c := range []struct {
		expr string
		want string
	}{
		{`sum(rate(x_total[1m]))`, "aggregates without by"},
		{`sum by (probe) (rate(x_total[1m]))`, "drops cluster or instance"},
		{`histogram_quantile(0.99, sum by (cluster, instance, le) (rate(x_bucket{a="b"}[1m])))`, "no native-histogram form"},
		{`histogram_quantile(0.99, sum by (cluster, instance) (rate(x{a="b"}[1m]))) or histogram_quantile(0.99, sum by (cluster, instance, le) (rate(x_bucket{a="b"}[1m])))`, ""},
	} {
		got := strings.Join(fleetProblems(c.expr), "; ")
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("fleetProblems(%q) = %q, want %q", c.expr, got, c.want)
		}
	}
}

func TestDashboards(t *testing.T) {
	k := loadKnown(t)
	names, err := FileNames()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for n := range wantDashboards {
		got = append(got, n)
	}
	sort.Strings(got)
	if !reflect.DeepEqual(names, got) {
		t.Fatalf("dashboard files = %v, want %v", names, got)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			raw, err := Files.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range lintDashboard(name, raw, k) {
				t.Error(p)
			}
		})
	}
}

// TestLintFindsProblems makes sure the linter can fail.
func TestLintFindsProblems(t *testing.T) {
	k := loadKnown(t)
	k.upcoming = map[string]bool{"kafka_bench_upcoming_info": true}
	raw := []byte(`{
  "uid": "kafka-bench-overview", "title": "Kafka Bench / Overview", "schemaVersion": 30, "tags": [],
  "__inputs": [],
  "templating": {"list": [{"name": "datasource", "type": "datasource", "query": "prometheus"}]},
  "annotations": {"list": [{"name": "x", "datasource": {"type": "prometheus", "uid": "${datasource}"}, "expr": "changes(kafka_bench_upcoming_info[2m]) > 0"}]},
  "panels": [
    {"id": 1, "type": "timeseries", "title": "no unit", "gridPos": {}, "datasource": {"type": "prometheus", "uid": "P1809F7CD0C75ACF3"},
     "fieldConfig": {"defaults": {}},
     "targets": [{"refId": "A", "datasource": {"type": "prometheus", "uid": "${datasource}"}, "expr": "rate(kafka_bench_no_such_metric_total[$__rate_interval])"}]},
    {"id": 1, "type": "timeseries", "title": "duplicate id $nope", "gridPos": {}, "datasource": {"type": "prometheus", "uid": "${datasource}"},
     "fieldConfig": {"defaults": {"unit": "s"}},
     "targets": [{"refId": "A", "datasource": {"type": "prometheus", "uid": "${datasource}"}, "expr": "kafka_bench_upcoming_info"}]},
    {"id": 2, "type": "timeseries", "title": "name regex", "gridPos": {}, "datasource": {"type": "prometheus", "uid": "${datasource}"},
     "fieldConfig": {"defaults": {"unit": "s"}},
     "targets": [{"refId": "A", "datasource": {"type": "prometheus", "uid": "${datasource}"}, "expr": "sum({__name__=~\"kafka_bench_nope_(a|b)\"})"}]}
  ]}`)
	problems := strings.Join(lintDashboard("kafka-bench-overview.json", raw, k), "\n")
	for _, want := range []string{
		"schemaVersion 30",
		"has __inputs",
		"no tags",
		"P1809F7CD0C75ACF3",
		"fieldConfig.defaults.unit is not set",
		"duplicate panel id 1",
		"unknown metric kafka_bench_no_such_metric_total",
		"unknown metric kafka_bench_upcoming_info", // upcoming metrics only in annotations
		"undefined variable $nope",
		"missing template variable probe",
		"no annotation on kafka_bench_probe_info",
		`annotation "Topic config change" missing`,
		`annotation "Broker config change" missing`,
		`annotation "Broker restart" missing`,
		`annotation "Broker release change" missing`,
		`__name__=~"kafka_bench_nope_(a|b)" matches no known metric`,
	} {
		if !strings.Contains(problems, want) {
			t.Errorf("lint did not report %q; got:\n%s", want, problems)
		}
	}
	if strings.Contains(problems, `annotation "x": unknown metric`) {
		t.Errorf("upcoming metric rejected in an annotation:\n%s", problems)
	}
}

func TestQueries(t *testing.T) {
	if _, err := Queries(nil); err == nil || !strings.Contains(err.Error(), "probe_a") {
		t.Errorf("Queries(nil) error = %v, want one about probe_a", err)
	}
	qs, err := Queries(map[string]string{"probe_a": "p1", "probe_b": "p2", "group": "g1", "__rate_interval": "2m"})
	if err != nil {
		t.Fatal(err)
	}
	perDashboard := map[string]int{}
	annotations := 0
	for _, q := range qs {
		perDashboard[q.Dashboard]++
		if q.Annotation {
			annotations++
		}
		if strings.ContainsAny(q.Expr, "$[") && strings.Contains(q.Expr, "$") {
			t.Errorf("%s / %s: unsubstituted variable in %q", q.Dashboard, q.PanelTitle, q.Expr)
		}
		if q.Format == "" || q.Dashboard == "" || q.PanelTitle == "" {
			t.Errorf("incomplete query %+v", q)
		}
	}
	if perDashboard[OverviewUID] < 20 || perDashboard[CompareUID] < 10 || perDashboard[GroupsUID] < 10 {
		t.Errorf("queries per dashboard = %v", perDashboard)
	}
	if annotations != 15 {
		t.Errorf("annotation queries = %d, want 15 (5 per dashboard)", annotations)
	}
	var sawRate, sawProbeA, sawGroup bool
	for _, q := range qs {
		sawRate = sawRate || strings.Contains(q.Expr, "[2m]")
		sawProbeA = sawProbeA || strings.Contains(q.Expr, `probe="p1"`)
		sawGroup = sawGroup || strings.Contains(q.Expr, `group="g1"`)
	}
	if !sawRate || !sawProbeA || !sawGroup {
		t.Errorf("substitution not applied: [2m] seen %v, probe=\"p1\" seen %v, group=\"g1\" seen %v", sawRate, sawProbeA, sawGroup)
	}
}

func TestSubstitute(t *testing.T) {
	got, err := Substitute(`x{a=~"$probe_a|${probe_b}|[[probe]]", b="${job:regex}"}[$__rate_interval] offset $compare_offset`,
		map[string]string{"probe_a": "A", "probe_b": "B"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `x{a=~"A|B|.*", b=".*"}[1m] offset 1d`; got != want {
		t.Errorf("Substitute = %q, want %q", got, want)
	}
	if _, err := Substitute("$nope", nil); err == nil {
		t.Error("Substitute($nope) returned no error")
	}
}

// TestQueriesParse runs promtool check rules on a rule file holding every
// dashboard query as a recording rule, so PromQL syntax errors are caught
// without a running Prometheus. Without promtool it is skipped, unless
// CI=true or KAFKA_BENCH_INTEGRATION=1.
func TestQueriesParse(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("CI") == "true" || os.Getenv("KAFKA_BENCH_INTEGRATION") == "1" {
			t.Fatalf("promtool is required when CI=true or KAFKA_BENCH_INTEGRATION=1: %v", err)
		}
		t.Skipf("promtool not found, skipping: %v", err)
	}
	qs, err := Queries(testVars)
	if err != nil {
		t.Fatal(err)
	}
	type rule struct {
		Record string `yaml:"record"`
		Expr   string `yaml:"expr"`
	}
	var rules []rule
	for i, q := range qs {
		rules = append(rules, rule{Record: fmt.Sprintf("dashboard_query_%d", i), Expr: q.Expr})
	}
	b, err := yaml.Marshal(map[string]any{"groups": []any{map[string]any{"name": "dashboards", "rules": rules}}})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "dashboard_queries.yml")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(promtool, "check", "rules", file).CombinedOutput()
	if err != nil {
		for i, q := range qs {
			t.Logf("dashboard_query_%d = %s / %s: %s", i, q.Dashboard, q.PanelTitle, q.Expr)
		}
		t.Fatalf("promtool check rules on the dashboard queries: %v\n%s", err, out)
	}

	// The check itself must be able to fail.
	if err := os.WriteFile(file, []byte("groups:\n  - name: x\n    rules:\n      - record: x\n        expr: sum(rate(x[5m])\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(promtool, "check", "rules", file).CombinedOutput(); err == nil {
		t.Errorf("promtool accepted a broken query:\n%s", out)
	}
}
