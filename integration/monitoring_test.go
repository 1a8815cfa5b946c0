package integration

// The monitoring end-to-end test: dashboards and rule files against a real
// Prometheus (internal/promtest) scraping the exporter while it probes the
// embedded cluster.

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	dto "github.com/prometheus/client_model/go"
	"gopkg.in/yaml.v3"

	"github.com/kafka-bench/kafka_bench_exporter/alerts"
	"github.com/kafka-bench/kafka_bench_exporter/dashboards"
	"github.com/kafka-bench/kafka_bench_exporter/internal/exportertest"
	"github.com/kafka-bench/kafka_bench_exporter/internal/promtest"
	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testenv"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

// exporterConfig runs two probes with a 1 s lag interval, so probe_up drops
// to 0 about 2 s after the brokers stop. Host disks and interfaces are not
// filtered, so the host-row panels have data on any machine. Probe a's
// capacity canary runs within 4 s of the start and takes about 5 s, so the
// capacity row has data.
const exporterConfig = `
probes:
  - name: a
    rate: 200
    record_size: 200
    lag_interval: 1s
    capacity: {interval: 40s, step_duration: 1s, start_rate: 100, growth: 2, max_rate: 400, latency_slo: 5s}
  - name: b
    rate: 100
    record_size: 1024
    lag_interval: 1s
host:
  disks: "."
  interfaces: "."
`

// probeDownTestAlert is the name of the test copy of KafkaBenchProbeDown
// (for: 5s instead of 5m). It is renamed so that its alerts cannot be
// confused with those of the original rule, which is loaded too.
const probeDownTestAlert = "KafkaBenchProbeDownE2E"

// Reasons a query or recording rule may have no data in a fresh test.
const (
	reasonOffset = "compares with $compare_offset (1h) earlier: a fresh Prometheus has no data that old"
	reasonKprom  = "kprom creates kafka_bench_client_connect_errors_total only after the first failed connection"
	reasonDays   = "compares with 1 d / 7 d earlier: a fresh Prometheus has no data that old"
)

// noDataAllowed lists the dashboard queries that cannot return data in a
// fresh test. They must still be valid (the query succeeds); every entry
// must match a query, so the list cannot go stale.
var noDataAllowed = []struct {
	dashboard, panel, refID, reason string
}{
	{dashboards.CompareUID, "Records/s produced: now vs $compare_offset earlier", "B", reasonOffset},
	{dashboards.CompareUID, "MB/s produced: now vs $compare_offset earlier", "B", reasonOffset},
	{dashboards.CompareUID, "Produce latency p99: now vs $compare_offset earlier", "B", reasonOffset},
	{dashboards.CompareUID, "End-to-end latency p99: now vs $compare_offset earlier", "B", reasonOffset},
	{dashboards.CompareUID, "Produce failures: now vs $compare_offset earlier", "B", reasonOffset},
	{dashboards.CompareUID, "Lost / duplicated records: now vs $compare_offset earlier", "B", reasonOffset},
	{dashboards.CompareUID, "Lost / duplicated records: now vs $compare_offset earlier", "D", reasonOffset},
	{dashboards.OverviewUID, "Connects and connect errors", "B", reasonKprom},
	{dashboards.OverviewUID, "Capacity at the latency SLO: now vs 1 d and 7 d earlier", "B", reasonDays},
	{dashboards.OverviewUID, "Capacity at the latency SLO: now vs 1 d and 7 d earlier", "C", reasonDays},
}

// recordingNoDataAllowed lists recording rules that cannot have data in a
// fresh test, with the reason. Every recording rule has data within seconds
// today (the longer SLO windows average the recorded 5m rates, and
// sum_over_time needs only one sample), so it is empty.
var recordingNoDataAllowed = map[string]string{}

// upcomingMetrics mirrors the allow-list of the dashboard lint test
// (dashboards/dashboards_test.go): metrics annotations may use before the
// exporter exports them. Empty while every such metric is exported.
var upcomingMetrics = map[string]bool{}

// kpromAfterEvent are kprom client metrics that exist only after an event
// (a failed connection, a read or write error, a throttled request), so a
// scrape of a healthy exporter does not show them.
var kpromAfterEvent = map[string]bool{
	"kafka_bench_client_connect_errors_total": true,
	"kafka_bench_client_disconnects_total":    true,
	"kafka_bench_client_read_errors_total":    true,
	"kafka_bench_client_write_errors_total":   true,
}

// TestMonitoringEndToEnd runs the dashboards and rule files against a real
// Prometheus scraping the exporter while it probes the embedded cluster.
func TestMonitoringEndToEnd(t *testing.T) {
	if testing.Short() && !testenv.Strict() {
		t.Skip("end-to-end test skipped in -short mode (set KAFKA_BENCH_INTEGRATION=1 to force)")
	}
	promtest.Required(t)
	start := time.Now()

	emb := exportertest.Embedded(t)
	stopBrokers := emb.Close

	x := exportertest.Start(t, exporterConfig, emb.Brokers())
	x.WaitReady(t, 60*time.Second)
	target := strings.TrimPrefix(x.URL, "http://")

	ruleFiles, err := alerts.RuleFiles()
	if err != nil {
		t.Fatal(err)
	}
	ruleFiles["probe_down_e2e.yml"] = probeDownTestCopy(t)
	prom := promtest.Start(t, promtest.Config{Target: target, RuleFiles: ruleFiles})
	targets := prom.WaitTargetsUp(t, 30*time.Second)
	instance := targets[0].Labels["instance"]
	if instance != target {
		t.Fatalf("target instance label = %q, want %q", instance, target)
	}
	t.Logf("prometheus %s scraping %s (ready after %s)", prom.URL, target, time.Since(start).Round(time.Millisecond))

	vars := map[string]string{
		"job":             promtest.JobName,
		"instance":        instance,
		"probe":           "a",
		"probe_a":         "a",
		"probe_b":         "b",
		"compare_offset":  "1h",
		"__rate_interval": "15s",
	}
	queries, err := dashboards.Queries(vars)
	if err != nil {
		t.Fatal(err)
	}
	allowed := allowList(t, queries)
	recordings, err := alerts.RecordingRuleNames()
	if err != nil {
		t.Fatal(err)
	}
	for name := range recordingNoDataAllowed {
		if !slices.Contains(recordings, name) {
			t.Errorf("recordingNoDataAllowed: no recording rule %s", name)
		}
	}

	// Poll until every query and recording rule that must have data has
	// it and every rule has been evaluated.
	var (
		qres    []queryResult
		rres    []queryResult
		rules   []promtest.Rule
		missing []string
	)
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		qres = runQueries(ctx, prom, queries)
		rres = runRecordings(ctx, prom, recordings)
		rules, err = prom.Rules(ctx)
		cancel()
		missing = missing[:0]
		for i, r := range qres {
			if r.err != nil || (r.n == 0 && allowed[i] == "") {
				missing = append(missing, r.describe())
			}
		}
		for _, r := range rres {
			if r.err != nil || (r.n == 0 && recordingNoDataAllowed[r.name] == "") {
				missing = append(missing, r.describe())
			}
		}
		if err != nil {
			missing = append(missing, "rules API: "+err.Error())
		}
		for _, r := range rules {
			if r.Health == "unknown" {
				missing = append(missing, fmt.Sprintf("rule %s (group %s) not evaluated yet", r.Name, r.Group))
			}
		}
		if len(missing) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Second)
	}
	t.Logf("dashboard queries and recording rules checked %s after start", time.Since(start).Round(time.Millisecond))
	if testing.Verbose() {
		t.Log("dashboard queries and recording rules → series:\n" + seriesTable(qres, rres, allowed))
	}
	for _, m := range missing {
		t.Error(m)
	}

	// Every rule of every file is loaded and healthy.
	loaded := map[string]bool{}
	for _, r := range rules {
		loaded[r.Name] = true
		if r.Health != "ok" || r.LastError != "" {
			t.Errorf("rule %s (group %s, %s): health %q, last error %q", r.Name, r.Group, r.File, r.Health, r.LastError)
		}
	}
	alertNames, err := alerts.AlertNames()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range append(append(alertNames, recordings...), probeDownTestAlert) {
		if !loaded[n] {
			t.Errorf("rule %s is not loaded in prometheus", n)
		}
	}

	// Base metrics used by the dashboards appear in a real scrape.
	checkMetricsExposed(t, x.Scrape(t), queries)

	// Silent case: with the brokers up, the test copy of
	// KafkaBenchProbeDown is (or, after a hiccup of the probe on a loaded
	// machine, soon becomes) inactive for probe a.
	probetest.Eventually(t, 30*time.Second, probeDownTestAlert+" inactive for probe a while the brokers are up", func() (bool, string) {
		state, err := probeDownState(prom)
		if err != nil {
			return false, err.Error()
		}
		return state == "", state
	})

	// Stop the brokers: probe_up goes to 0 after two lag intervals, and
	// the test copy of KafkaBenchProbeDown must become pending or firing.
	stopped := time.Now()
	stopBrokers()
	probetest.Eventually(t, 60*time.Second, probeDownTestAlert+" pending or firing for probe a", func() (bool, string) {
		state, err := probeDownState(prom)
		if err != nil {
			return false, err.Error()
		}
		if state == "pending" || state == "firing" {
			t.Logf("%s %s for probe a %s after the brokers stopped", probeDownTestAlert, state, time.Since(stopped).Round(time.Millisecond))
			return true, ""
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, up, err := prom.Query(ctx, `kafka_bench_probe_up{probe="a"}`)
		return false, fmt.Sprintf("alert state %q; kafka_bench_probe_up{probe=\"a\"}: %v %v", state, up, err)
	})
	t.Logf("total %s", time.Since(start).Round(time.Millisecond))
}

// probeDownTestCopy is KafkaBenchProbeDown with for: 5s, renamed to
// probeDownTestAlert.
func probeDownTestCopy(t *testing.T) []byte {
	t.Helper()
	b, err := alerts.AlertRuleFile("KafkaBenchProbeDown", "5s")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Groups []struct {
			Name  string           `yaml:"name"`
			Rules []map[string]any `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	n := 0
	for gi := range f.Groups {
		f.Groups[gi].Name += "_e2e"
		for _, r := range f.Groups[gi].Rules {
			if r["alert"] != "KafkaBenchProbeDown" || r["for"] != "5s" {
				t.Fatalf("AlertRuleFile returned an unexpected rule: %v", r)
			}
			r["alert"] = probeDownTestAlert
			n++
		}
	}
	if n == 0 {
		t.Fatalf("AlertRuleFile returned no rule:\n%s", b)
	}
	out, err := yaml.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// allowList maps the index of every allow-listed query to its reason and
// fails on entries that match no query.
func allowList(t *testing.T, queries []dashboards.Query) map[int]string {
	t.Helper()
	allowed := map[int]string{}
	for _, a := range noDataAllowed {
		found := false
		for i, q := range queries {
			if q.Dashboard == a.dashboard && q.PanelTitle == a.panel && q.RefID == a.refID {
				allowed[i] = a.reason
				found = true
			}
		}
		if !found {
			t.Errorf("noDataAllowed entry matches no query: %s / %q / %q", a.dashboard, a.panel, a.refID)
		}
	}
	return allowed
}

type queryResult struct {
	name  string // "<dashboard> / <panel> [refId]" or the recording rule
	expr  string
	typ   string
	n     int
	value float64 // of the first series
	err   error
}

func (r queryResult) describe() string {
	if r.err != nil {
		return fmt.Sprintf("%s: query failed: %v\n\t%s", r.name, r.err, r.expr)
	}
	return fmt.Sprintf("%s: no series\n\t%s", r.name, r.expr)
}

func runQuery(ctx context.Context, prom *promtest.Prometheus, name, expr string) queryResult {
	r := queryResult{name: name, expr: expr, value: math.NaN()}
	var series []promtest.Series
	r.typ, series, r.err = prom.Query(ctx, expr)
	r.n = len(series)
	if r.n > 0 {
		r.value = series[0].Value
	}
	return r
}

func runQueries(ctx context.Context, prom *promtest.Prometheus, queries []dashboards.Query) []queryResult {
	out := make([]queryResult, len(queries))
	for i, q := range queries {
		name := q.Dashboard + " / " + q.PanelTitle
		if q.RefID != "" {
			name += " [" + q.RefID + "]"
		}
		out[i] = runQuery(ctx, prom, name, q.Expr)
	}
	return out
}

func runRecordings(ctx context.Context, prom *promtest.Prometheus, names []string) []queryResult {
	out := make([]queryResult, len(names))
	for i, n := range names {
		out[i] = runQuery(ctx, prom, "recording rule "+n, n)
	}
	return out
}

func seriesTable(qres, rres []queryResult, allowed map[int]string) string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	// A tabwriter over a strings.Builder: no write can fail.
	_, _ = fmt.Fprintln(w, "SERIES\tFIRST VALUE\tQUERY\tNOTE")
	row := func(r queryResult, note string) {
		n := fmt.Sprint(r.n)
		if r.err != nil {
			n = "ERROR"
			note = r.err.Error()
		}
		_, _ = fmt.Fprintf(w, "%s\t%.4g\t%s\t%s\n", n, r.value, r.name, note)
	}
	for i, r := range qres {
		note := ""
		if reason := allowed[i]; reason != "" {
			note = "no data allowed: " + reason
		}
		row(r, note)
	}
	for _, r := range rres {
		row(r, recordingNoDataAllowed[strings.TrimPrefix(r.name, "recording rule ")])
	}
	_ = w.Flush()
	return b.String()
}

var (
	strLitRE = regexp.MustCompile(`"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|` + "`[^`]*`")
	identRE  = regexp.MustCompile(`[A-Za-z_:][A-Za-z0-9_:]*`)
)

// baseMetricNames returns the exporter metric names (kafka_bench_*, go_*,
// process_*) the queries reference, outside string literals. Recording rules
// (names with a colon) are not included.
func baseMetricNames(queries []dashboards.Query) map[string][]string {
	out := map[string][]string{} // name -> panels
	for _, q := range queries {
		for _, id := range identRE.FindAllString(strLitRE.ReplaceAllString(q.Expr, `""`), -1) {
			if strings.Contains(id, ":") {
				continue
			}
			if strings.HasPrefix(id, "kafka_bench_") || strings.HasPrefix(id, "go_") || strings.HasPrefix(id, "process_") {
				where := q.Dashboard + " / " + q.PanelTitle
				if !slices.Contains(out[id], where) {
					out[id] = append(out[id], where)
				}
			}
		}
	}
	return out
}

// checkMetricsExposed asserts that every base metric the dashboards use is
// in the scrape (histogram series by their family), unless it is an upcoming
// metric or a kprom metric that appears only after an event.
func checkMetricsExposed(t *testing.T, families scrape.Families, queries []dashboards.Query) {
	t.Helper()
	used := baseMetricNames(queries)
	if len(used) == 0 {
		t.Fatal("found no exporter metric in the dashboard queries")
	}
	names := make([]string, 0, len(used))
	for n := range used {
		names = append(names, n)
	}
	sort.Strings(names)
	t.Logf("checking that the %d exporter metrics the dashboards use are in a real scrape", len(names))
	for _, n := range names {
		if upcomingMetrics[n] {
			continue
		}
		if _, ok := families[n]; ok {
			continue
		}
		if base, ok := cutHistogramSuffix(n); ok {
			if mf, ok := families[base]; ok && mf.GetType() == dto.MetricType_HISTOGRAM {
				continue
			}
		}
		if kpromAfterEvent[n] && strings.HasPrefix(n, "kafka_bench_client_") {
			t.Logf("%s is not in the scrape: a kprom metric that appears only after an event", n)
			continue
		}
		t.Errorf("metric %s, used by %s, is not in a scrape of the exporter", n, strings.Join(used[n], ", "))
	}
}

func cutHistogramSuffix(name string) (string, bool) {
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		if base, ok := strings.CutSuffix(name, suffix); ok {
			return base, true
		}
	}
	return "", false
}

// probeDownState is the state of the test copy of KafkaBenchProbeDown for
// probe a: "" (inactive), "pending" or "firing".
func probeDownState(prom *promtest.Prometheus) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	active, err := prom.Alerts(ctx)
	if err != nil {
		return "", err
	}
	for _, a := range active {
		if a.Name == probeDownTestAlert && a.Labels["probe"] == "a" {
			return a.State, nil
		}
	}
	return "", nil
}
