package integration

// The monitoring end-to-end test: dashboards and rule files against real
// Prometheus servers (internal/promtest) scraping two exporters while they
// probe two clusters.

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"testing/fstest"
	"text/tabwriter"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
	"go.yaml.in/yaml/v3"

	"github.com/kafka-bench/kafka_bench_exporter/alerts"
	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/dashboards"
	"github.com/kafka-bench/kafka_bench_exporter/internal/exportertest"
	"github.com/kafka-bench/kafka_bench_exporter/internal/promtest"
	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testenv"
	"github.com/kafka-bench/kafka_bench_exporter/mixin"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
	"github.com/kafka-bench/kafka_bench_exporter/probes/promsink/family"
)

// exporterConfig runs two probes with a 1 s lag interval, so probe_up drops
// to 0 about 2 s after the brokers stop. Host disks and interfaces are not
// filtered, so the host-row panels have data on any machine. Probe a's
// capacity canary runs within 4 s of the start and takes about 5 s, so the
// capacity row has data. The groups block exports the probes' own groups
// (kafka-bench-a, kafka-bench-b), every 5 s, so the Consumer groups
// dashboard has data. Probe a reads its topic from the start every 5 s
// (catch_up), so the catch-up row has data.
const exporterConfig = `
probes:
  - name: a
    rate: 200
    record_size: 200
    lag_interval: 1s
    capacity: {interval: 40s, step_duration: 1s, start_rate: 100, growth: 2, max_rate: 400, latency_slo: 5s}
    catch_up: [{from: start, interval: 5s, max_duration: 2s}]
  - name: b
    rate: 100
    record_size: 1024
    lag_interval: 1s
host:
  disks: "."
  interfaces: "."
groups: {probe_groups: true, interval: 5s}
`

// withReplica gives probe a (the probe the dashboard queries select) a
// replica block that reads its own topic back from its own cluster
// (identity policy), so the Replication row has data.
func withReplica(config string, brokers []string) string {
	replica := fmt.Sprintf("    replica: {kafka: {brokers: [%s]}, topic_policy: identity}\n", strings.Join(brokers, ", "))
	out := strings.Replace(config, "  - name: b\n", replica+"  - name: b\n", 1)
	if out == config {
		panic("withReplica: probe b's entry not found")
	}
	return out
}

// Test copies of alerts, with a short for: and renamed so that their
// alerts cannot be confused with those of the originals, which are loaded
// too.
const (
	probeDownTestAlert     = "KafkaBenchProbeDownE2E"             // for: 5s instead of 5m
	exporterDownTestAlert  = "KafkaBenchExporterDownE2E"          // for: 5s instead of 5m
	reloadFailingTestAlert = "KafkaBenchConfigReloadFailingE2E"   // for: 1s instead of 5m
	produceBurnTestAlert   = "KafkaBenchProduceLatencySLOBurnE2E" // for: 5s instead of 2m, 15m, 1h
)

// testCopies are the rule file of every test copy above.
func testCopies(t *testing.T) map[string][]byte {
	t.Helper()
	return map[string][]byte{
		"probe_down_e2e.yml":     testCopy(t, "KafkaBenchProbeDown", probeDownTestAlert, "5s"),
		"exporter_down_e2e.yml":  testCopy(t, "KafkaBenchExporterDown", exporterDownTestAlert, "5s"),
		"reload_failing_e2e.yml": testCopy(t, "KafkaBenchConfigReloadFailing", reloadFailingTestAlert, "1s"),
		"produce_burn_e2e.yml":   testCopy(t, "KafkaBenchProduceLatencySLOBurn", produceBurnTestAlert, "5s"),
	}
}

// The two clusters every Prometheus scrapes, as their target label cluster:
// a fast embedded cluster, and one whose every Produce takes slowProduce.
const (
	fastCluster = "a"
	slowCluster = "b"
	slowProduce = 150 * time.Millisecond
)

// noClusterLabel lists the dashboard queries that are about no cluster (the
// SLO objective, a constant); every other query keeps the cluster label.
var noClusterLabel = []struct{ dashboard, panel, refID string }{
	{dashboards.OverviewUID, "Produce latency SLO: share of slow records vs error budget", "D"},
	{dashboards.OverviewUID, "End-to-end latency SLO: share of slow records vs error budget", "D"},
}

// Reasons a query or recording rule may have no data in a fresh test.
const (
	reasonOffset = "compares with $compare_offset (1h) earlier: a fresh Prometheus has no data that old"
	reasonKprom  = "kprom creates kafka_bench_client_connect_errors_total only after the first failed connection"
	reasonDays   = "compares with 1 d / 7 d earlier: a fresh Prometheus has no data that old"
	reasonEvent  = "an event annotation: it draws only within 2 minutes of a probe start, a configuration change or a broker restart"
	reasonShare  = "the test's probes read with consumer groups, not share groups (consumer.kind: share)"
	reasonTxn    = "the test's probes produce outside transactions (producer.transactional.id; transactions_test.go measures them)"
	reasonRC     = "the test's probes read with read_uncommitted: the stable lag is a read_committed probe's (transactions_test.go measures it)"
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
	{dashboards.OverviewUID, "Catch-up throughput: now vs 1 d and 7 d earlier", "B", reasonDays},
	{dashboards.OverviewUID, "Catch-up throughput: now vs 1 d and 7 d earlier", "C", reasonDays},
	{dashboards.OverviewUID, "annotation: Probe started or settings changed", "", reasonEvent},
	{dashboards.OverviewUID, "annotation: Broker config change", "", reasonEvent},
	{dashboards.OverviewUID, "annotation: Topic config change", "", reasonEvent},
	{dashboards.OverviewUID, "annotation: Broker restart", "", reasonEvent},
	{dashboards.OverviewUID, "annotation: Broker release change", "", reasonEvent},
	{dashboards.OverviewUID, "Share delivery and acknowledgement latency p99", "A", reasonShare},
	{dashboards.OverviewUID, "Share delivery and acknowledgement latency p99", "B", reasonShare},
	{dashboards.OverviewUID, "Share redeliveries/s by cause", "A", reasonShare},
	{dashboards.OverviewUID, "Share records archived by reason", "A", reasonShare},
	{dashboards.OverviewUID, "Share acknowledgements failed/s by outcome", "A", reasonShare},
	{dashboards.OverviewUID, "Share group lag (records)", "A", reasonShare},
	{dashboards.OverviewUID, "Share group members", "A", reasonShare},
	{dashboards.OverviewUID, "Transactions/s by outcome", "A", reasonTxn},
	{dashboards.OverviewUID, "Transaction end latency p99 by end", "A", reasonTxn},
	{dashboards.OverviewUID, "Aborted records read by read_committed (must be 0)", "A", reasonTxn},
	{dashboards.OverviewUID, "Records in aborted transactions/s", "A", reasonTxn},
	{dashboards.OverviewUID, "Consumer lag: to the end and to the last stable offset", "A", reasonRC},
	{dashboards.OverviewUID, "Consumer lag: to the end and to the last stable offset", "B", reasonRC},
	{dashboards.CompareUID, "annotation: Probe started or settings changed", "", reasonEvent},
	{dashboards.CompareUID, "annotation: Broker config change", "", reasonEvent},
	{dashboards.CompareUID, "annotation: Topic config change", "", reasonEvent},
	{dashboards.CompareUID, "annotation: Broker restart", "", reasonEvent},
	{dashboards.CompareUID, "annotation: Broker release change", "", reasonEvent},
	{dashboards.GroupsUID, "annotation: Probe started or settings changed", "", reasonEvent},
	{dashboards.GroupsUID, "annotation: Broker config change", "", reasonEvent},
	{dashboards.GroupsUID, "annotation: Topic config change", "", reasonEvent},
	{dashboards.GroupsUID, "annotation: Broker restart", "", reasonEvent},
	{dashboards.GroupsUID, "annotation: Broker release change", "", reasonEvent},
}

// recordingNoDataAllowed lists recording rules that cannot have data in a
// fresh test, with the reason. Every recording rule has data within seconds
// today (the longer SLO windows average the recorded 5m rates, and
// sum_over_time needs only one sample), so it is empty.
var recordingNoDataAllowed = map[string]string{}

// recordingNoCluster are the recording rules that are about no cluster.
var recordingNoCluster = map[string]bool{
	"kafka_bench:produce_latency_slo_objective:ratio":    true,
	"kafka_bench:end_to_end_latency_slo_objective:ratio": true,
	"kafka_bench:produce_success_slo_objective:ratio":    true,
	"kafka_bench:delivery_slo_objective:ratio":           true,
	"kafka_bench:loss_slo_objective:ratio":               true,
}

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

// server is one Prometheus of the test and what it runs.
type server struct {
	name string // e.g. "prometheus3-native"
	mode promtest.Mode
	v3   bool
	prom *promtest.Prometheus
	// clusterLabel is the target label that tells clusters apart
	// (the mixin's _config.clusterLabel); "" is cluster.
	clusterLabel string
}

// label is s's cluster label name.
func (s *server) label() string {
	if s.clusterLabel == "" {
		return "cluster"
	}
	return s.clusterLabel
}

// testMonitoringEndToEnd (TestPrometheusEndToEnd) runs the dashboards and rule files against real
// Prometheus servers, each scraping two exporters that probe two clusters
// with the same probe names: Prometheus 3 in each histogram ingestion mode
// (classic only, native only, both) and Debian's Prometheus 2 (classic).
// Every panel query and recording rule answers per cluster, never summed
// across them; the latency quantiles agree across modes; the burn-rate,
// reload, target-down and probe-down alerts fire.
func testMonitoringEndToEnd(t *testing.T) {
	if testing.Short() && !testenv.Strict() {
		t.Skip("end-to-end test skipped in -short mode (set KAFKA_BENCH_INTEGRATION=1 to force)")
	}
	v3 := promtest.Required(t)
	v2 := promtest.Debian(t)
	start := time.Now()

	emb := exportertest.Embedded(t)
	stopBrokers := emb.Close
	slow := startSlowCluster(t)

	xa := exportertest.Start(t, withReplica(exporterConfig, emb.Brokers()), emb.Brokers())
	xb := exportertest.Start(t, withReplica(exporterConfig, slow.ListenAddrs()), slow.ListenAddrs())
	xa.WaitReady(t, 60*time.Second)
	xb.WaitReady(t, 60*time.Second)
	targets := []promtest.ScrapeTarget{
		{Addr: strings.TrimPrefix(xa.URL, "http://"), Labels: map[string]string{"cluster": fastCluster}},
		{Addr: strings.TrimPrefix(xb.URL, "http://"), Labels: map[string]string{"cluster": slowCluster}},
	}

	ruleFiles, err := alerts.RuleFiles()
	if err != nil {
		t.Fatal(err)
	}
	maps.Copy(ruleFiles, testCopies(t))
	var servers []*server
	for _, m := range promtest.Modes {
		servers = append(servers, &server{name: "prometheus3-" + m.String(), mode: m, v3: true})
	}
	servers = append(servers, &server{name: "prometheus2-classic", mode: promtest.Classic})
	for _, s := range servers {
		bin := v3
		if !s.v3 {
			bin = v2
		}
		s.prom = promtest.Start(t, promtest.Config{Targets: targets, RuleFiles: ruleFiles, Mode: s.mode, Binaries: &bin})
	}
	for _, s := range servers {
		s.prom.WaitTargetsUp(t, 30*time.Second)
	}
	t.Logf("%d Prometheus servers scraping %d exporters (ready after %s)", len(servers), len(targets), time.Since(start).Round(time.Millisecond))
	// Every server has scraped both exporters from here on: the p99
	// comparison below reads a window that starts here, so no server's
	// window holds start-up records that another's lacks.
	allScraping := time.Now().Add(3 * time.Second)

	vars := map[string]string{
		"job":             promtest.JobName,
		"cluster":         ".*",
		"cluster_a":       fastCluster + "|" + slowCluster,
		"cluster_b":       fastCluster + "|" + slowCluster,
		"probe":           "a",
		"probe_a":         "a",
		"probe_b":         "b",
		"group":           "kafka-bench-a",
		"compare_offset":  "1h",
		"__rate_interval": "15s",
	}
	queries, err := dashboards.Queries(vars)
	if err != nil {
		t.Fatal(err)
	}
	allowed := allowList(t, queries)
	noCluster := noClusterList(t, queries)
	// The same dashboards reading the recording rules where one holds a
	// panel's series (_config.dashboardsUseRecordingRules).
	withRules, err := mixin.Render(`{ dashboardsUseRecordingRules: true }`)
	if err != nil {
		t.Fatal(err)
	}
	rulesFS := fstest.MapFS{}
	for name, b := range withRules.Dashboards {
		rulesFS[name] = &fstest.MapFile{Data: b}
	}
	ruleQueries, err := dashboards.QueriesIn(rulesFS, vars)
	if err != nil {
		t.Fatal(err)
	}
	ruleAllowed := allowList(t, ruleQueries)
	ruleNoCluster := noClusterList(t, ruleQueries)
	recordings, err := alerts.RecordingRuleNames()
	if err != nil {
		t.Fatal(err)
	}
	for name := range recordingNoDataAllowed {
		if !slices.Contains(recordings, name) {
			t.Errorf("recordingNoDataAllowed: no recording rule %s", name)
		}
	}
	alertNames, err := alerts.AlertNames()
	if err != nil {
		t.Fatal(err)
	}

	for _, s := range servers {
		t.Run(s.name+"/queries", func(t *testing.T) {
			checkQueriesAndRules(t, s.prom, queries, allowed, noCluster, recordings, alertNames)
		})
		t.Run(s.name+"/queries reading recording rules", func(t *testing.T) {
			checkQueriesAndRules(t, s.prom, ruleQueries, ruleAllowed, ruleNoCluster, recordings, alertNames)
		})
	}
	t.Run("p99 agree across modes", func(t *testing.T) {
		// The same moment and the same window, from when every server
		// scrapes, on every server: the same records, told apart only by
		// the histogram form read. Polled until every server has both
		// clusters' quantiles.
		var p99 map[string]map[string]float64 // server -> cluster -> produce p99
		probetest.Eventually(t, 90*time.Second, "produce p99 of both clusters on every server", func() (bool, string) {
			at := time.Now().Add(-2 * time.Second)
			window := at.Sub(allScraping).Truncate(time.Second)
			if window < 20*time.Second {
				return false, fmt.Sprintf("a window of %s since every server scrapes, want 20s", window)
			}
			p99 = map[string]map[string]float64{}
			for _, s := range servers {
				p99[s.name] = produceP99(t, s.prom, at, window)
				if len(p99[s.name]) != 2 {
					return false, fmt.Sprintf("%s: %v", s.name, p99[s.name])
				}
			}
			return true, ""
		})
		t.Logf("produce p99 by server and cluster: %v", p99)
		// Every estimate lies in the reference's classic bucket or one
		// beside it: a true p99 near a bucket's bound (10 ms, say) is below
		// it on one server and above it on another whose window holds one
		// scrape more or less, and there it is interpolated anywhere in the
		// next bucket.
		ref := p99["prometheus3-classic"]
		for name, byCluster := range p99 {
			for c, v := range byCluster {
				if d := classicBucket(v) - classicBucket(ref[c]); d < -1 || d > 1 {
					t.Errorf("%s: produce p99 of cluster %s = %.4g s, classic %.4g s: %d classic buckets apart", name, c, v, ref[c], max(d, -d))
				}
			}
		}
	})

	// Base metrics used by the dashboards appear in a real scrape.
	checkMetricsExposed(t, xa.Scrape(t), queries)

	v3servers := servers[:len(promtest.Modes)]
	// The slow cluster burns its produce-latency error budget, in every
	// ingestion mode, native only included. (The fast cluster is not
	// asserted silent: on a loaded machine its records, too, can take
	// longer than the SLO's 100 ms.)
	waitAlerts(t, v3servers, produceBurnTestAlert+" firing for cluster "+slowCluster, firingFor(produceBurnTestAlert, slowCluster))

	// A rejected reload keeps the old probes and fires the reload alert.
	if err := xa.Reload(context.Background(), func() (*config.Resolved, error) {
		return nil, errors.New("test: a configuration that does not load")
	}); err == nil {
		t.Fatal("Reload with a failing load returned no error")
	}
	waitAlerts(t, v3servers, reloadFailingTestAlert+" firing for cluster "+fastCluster, firingFor(reloadFailingTestAlert, fastCluster))

	// One exporter stops: its target-down alert fires, within its for: and
	// the scrape interval (bounded by the poll's limit, not timed).
	xb.Close()
	waitAlerts(t, v3servers, exporterDownTestAlert+" firing for cluster "+slowCluster, firingFor(exporterDownTestAlert, slowCluster))

	// Stop the fast cluster's brokers: probe_up goes to 0 after two lag
	// intervals, and the test copy of KafkaBenchProbeDown fires for it.
	stopBrokers()
	waitAlerts(t, v3servers[:1], probeDownTestAlert+" active for probe a of cluster "+fastCluster, func(_ *server, as []promtest.Alert) (bool, string) {
		for _, a := range as {
			if a.Name == probeDownTestAlert && a.Labels["probe"] == "a" && a.Labels["cluster"] == fastCluster {
				return true, ""
			}
		}
		return false, "not active"
	})
	t.Logf("total %s", time.Since(start).Round(time.Millisecond))
}

// startSlowCluster starts a kfake cluster whose every Produce answer is held back
// slowProduce: a slow broker, so the produce latency SLO burns.
func startSlowCluster(t *testing.T) *kfake.Cluster {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(3))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	c.ControlKey(int16(kmsg.Produce), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		c.SleepControl(func() { time.Sleep(slowProduce) })
		return nil, nil, false
	})
	return c
}

// checkQueriesAndRules polls until every dashboard query and recording rule
// that must have data has it for both clusters, each in its own series, and
// every rule is evaluated; then every rule must be healthy.
func checkQueriesAndRules(t *testing.T, prom *promtest.Prometheus, queries []dashboards.Query, allowed map[int]string,
	noCluster map[int]bool, recordings, alertNames []string) {
	t.Helper()
	var (
		qres    []queryResult
		rres    []queryResult
		rules   []promtest.Rule
		missing []string
		err     error
	)
	deadline := time.Now().Add(90 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		qres = runQueries(ctx, prom, queries)
		rres = runRecordings(ctx, prom, recordings)
		rules, err = prom.Rules(ctx)
		cancel()
		missing = missing[:0]
		for i, r := range qres {
			switch {
			case r.err != nil:
				missing = append(missing, r.describe())
			case allowed[i] != "":
			case noCluster[i]:
				if r.n == 0 {
					missing = append(missing, r.describe())
				}
			default:
				missing = append(missing, r.clusterProblems()...)
			}
		}
		for _, r := range rres {
			name := strings.TrimPrefix(r.name, "recording rule ")
			switch {
			case r.err != nil:
				missing = append(missing, r.describe())
			case recordingNoDataAllowed[name] != "":
			case recordingNoCluster[name]:
				if r.n == 0 {
					missing = append(missing, r.describe())
				}
			default:
				missing = append(missing, r.clusterProblems()...)
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
	for _, n := range append(append(slices.Clone(alertNames), recordings...), probeDownTestAlert, exporterDownTestAlert,
		reloadFailingTestAlert, produceBurnTestAlert) {
		if !loaded[n] {
			t.Errorf("rule %s is not loaded in prometheus", n)
		}
	}
}

// produceP99 is the Overview's produce p99 panel query per cluster, at at,
// over window.
func produceP99(t *testing.T, prom *promtest.Prometheus, at time.Time, window time.Duration) map[string]float64 {
	t.Helper()
	q, err := dashboards.Queries(map[string]string{"job": promtest.JobName, "probe": "a", "probe_a": "a", "probe_b": "b", "group": "kafka-bench-a",
		"__rate_interval": fmt.Sprintf("%ds", int(window.Seconds()))})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, x := range q {
		if x.PanelTitle != "Produce latency p50 / p95 / p99 / p99.9" || x.RefID != "C" {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, series, err := prom.QueryAt(ctx, x.Expr, at)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range series {
			out[s.Labels["cluster"]] = s.Value
		}
	}
	return out
}

// classicBucket is the index of the exporter's classic bucket that holds
// v: len(family.LatencyBuckets) for the +Inf bucket.
func classicBucket(v float64) int {
	i, _ := slices.BinarySearch(family.LatencyBuckets, v)
	return i
}

// alertCheck accepts or refuses the active alerts of server s, saying why
// not.
type alertCheck func(s *server, as []promtest.Alert) (bool, string)

// waitAlerts polls the active alerts of every server until ok accepts them.
func waitAlerts(t *testing.T, servers []*server, what string, ok alertCheck) {
	t.Helper()
	for _, s := range servers {
		// A bound for the poll on a loaded machine, not a measurement.
		probetest.Eventually(t, 180*time.Second, s.name+": "+what, func() (bool, string) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			as, err := s.prom.Alerts(ctx)
			if err != nil {
				return false, err.Error()
			}
			return ok(s, as)
		})
	}
}

// firingFor accepts the alerts when name fires for cluster (the value of
// the server's cluster label).
func firingFor(name, cluster string) alertCheck {
	return func(s *server, as []promtest.Alert) (bool, string) {
		var seen []string
		for _, a := range as {
			if a.Name == name {
				if a.Labels[s.label()] == cluster && a.State == "firing" {
					return true, ""
				}
				seen = append(seen, fmt.Sprintf("%v %s", a.Labels, a.State))
			}
		}
		return false, fmt.Sprintf("active: %v", seen)
	}
}

// resolved accepts the alerts when name is not active.
func resolved(name string) alertCheck {
	return func(_ *server, as []promtest.Alert) (bool, string) {
		for _, a := range as {
			if a.Name == name {
				return false, fmt.Sprintf("still %s: %v", a.State, a.Labels)
			}
		}
		return true, ""
	}
}

// testCopy is every rule of alert with for: forDuration, renamed to name.
func testCopy(t *testing.T, alert, name, forDuration string) []byte {
	t.Helper()
	b, err := alerts.AlertRuleFile(alert, forDuration)
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
			if r["alert"] != alert || r["for"] != forDuration {
				t.Fatalf("AlertRuleFile returned an unexpected rule: %v", r)
			}
			r["alert"] = name
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

// noClusterList maps the index of every noClusterLabel query and fails on
// entries that match no query.
func noClusterList(t *testing.T, queries []dashboards.Query) map[int]bool {
	t.Helper()
	out := map[int]bool{}
	for _, a := range noClusterLabel {
		found := false
		for i, q := range queries {
			if q.Dashboard == a.dashboard && q.PanelTitle == a.panel && q.RefID == a.refID {
				out[i] = true
				found = true
			}
		}
		if !found {
			t.Errorf("noClusterLabel entry matches no query: %s / %q / %q", a.dashboard, a.panel, a.refID)
		}
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
	name     string // "<dashboard> / <panel> [refId]" or the recording rule
	expr     string
	typ      string
	n        int
	value    float64        // of the first series
	clusters map[string]int // series by their cluster label ("" without)
	err      error
}

// clusterProblems: the result must hold series of both clusters, each with
// its cluster label; a series without one is a sum across clusters.
func (r queryResult) clusterProblems() []string {
	var out []string
	if r.n == 0 {
		return []string{r.describe()}
	}
	if n := r.clusters[""]; n > 0 {
		out = append(out, fmt.Sprintf("%s: %d of %d series have no cluster label (clusters added together)\n\t%s", r.name, n, r.n, r.expr))
	}
	for _, c := range []string{fastCluster, slowCluster} {
		if r.clusters[c] == 0 {
			out = append(out, fmt.Sprintf("%s: no series of cluster %s (series by cluster: %v)\n\t%s", r.name, c, r.clusters, r.expr))
		}
	}
	return out
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
	r.clusters = map[string]int{}
	for _, se := range series {
		r.clusters[se.Labels["cluster"]]++
	}
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
// metric, a kprom metric that appears only after an event, or a share-group
// metric (probes with consumer.kind: share only).
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
		if strings.HasPrefix(n, "kafka_bench_share_") {
			t.Logf("%s is not in the scrape: the test's probes read with consumer groups, not share groups", n)
			continue
		}
		if strings.HasPrefix(n, "kafka_bench_transaction") {
			t.Logf("%s is not in the scrape: the test's probes produce outside transactions", n)
			continue
		}
		if n == "kafka_bench_consumer_lag_stable_records" {
			t.Logf("%s is not in the scrape: the test's probes read with read_uncommitted", n)
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

func TestClassicBucket(t *testing.T) {
	// Two servers' p99 of one window, 9.99 ms and 16.5 ms, lie in
	// neighbouring buckets; 9.99 ms and 30 ms do not.
	for _, c := range []struct {
		v    float64
		want int
	}{
		{0, 0}, {0.0005, 0}, {0.0006, 1}, {0.00999, 4}, {0.01, 4}, {0.0165, 5}, {0.03, 6}, {30, 14}, {31, 15},
	} {
		if got := classicBucket(c.v); got != c.want {
			t.Errorf("classicBucket(%g) = %d, want %d", c.v, got, c.want)
		}
	}
}
