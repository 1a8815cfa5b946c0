package main

// README.md is the user's contract. These tests hold its tables to the
// program, so that drift fails here instead of waiting for a reader:
//
//	README table (section, first column)        held to
//	Command line, "flag"                        the kingpin model: application flags and `run`'s
//	One-shot bench mode, "flag"                 the kingpin model: `bench`'s own flags
//	Keys, defaults and ranges, "key"            the configuration as --config.check prints it
//	Metrics, "metric"                           the real exposition (embedded cluster): names, types, labels
//	Runbooks (headings)                         alerts/*.yml: one runbook per alert, runbook_url anchors
//	`metric` by `label` anywhere in the README  the exposition: the metric has the label
//	Layout, "folder"                            the files of the repository
//	One-shot bench mode (prose)                 every bench file key named (and in --bench.file's help)
//	links [x](#a), [x](BENCHMARKS.md#a)         the headings they point to
//	The two commands (prose)                    go.mod's Go version
//	Metrics, produce_failed_total "reason ∈"    probes.FailureReasons
//	Configuration changes, numeric settings     configwatch.ValueAllowList and its length
//
// and alerts/*.yml's labels (by, on, selectors, $labels) to the exposition.
// internal/readme parses the Markdown and compares; each message names the
// README line to fix. readme_drift_test.go shows each check failing when
// one side changes alone. Run: go test -run 'TestReadme' ./cmd/kafka_bench_exporter

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kingpin/v2"
	dto "github.com/prometheus/client_model/go"
	"gopkg.in/yaml.v3"

	"github.com/kafka-bench/kafka_bench_exporter/alerts"
	"github.com/kafka-bench/kafka_bench_exporter/bench"
	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/exporter/configwatch"
	"github.com/kafka-bench/kafka_bench_exporter/internal/exportertest"
	"github.com/kafka-bench/kafka_bench_exporter/internal/readme"
	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testenv"
	"github.com/kafka-bench/kafka_bench_exporter/probes"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

const (
	repoRoot   = "../.."
	readmePath = repoRoot + "/README.md"
)

func loadReadme(t *testing.T) *readme.Doc {
	t.Helper()
	d, err := readme.Load(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	d.Path = "README.md"
	return d
}

func table(t *testing.T, d *readme.Doc, section, first string) *readme.Table {
	t.Helper()
	tb, err := d.Table(section, first)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

func report(t *testing.T, what string, problems []string) {
	t.Helper()
	for _, p := range problems {
		t.Errorf("%s: %s", what, p)
	}
}

// commandFlags are the flags of the command line model: the application's
// (both commands accept them) and, for "run", the daemon's own; for
// "bench", bench's own only. Help and hidden flags are left out.
func commandFlags(t *testing.T, command string) []readme.Flag {
	t.Helper()
	m := newApp(&flags{}, nil).Model()
	var groups []*kingpin.FlagGroupModel
	if command == "run" {
		groups = append(groups, m.FlagGroupModel)
	}
	for _, c := range m.Commands {
		if c.Name == command {
			groups = append(groups, c.FlagGroupModel)
		}
	}
	var out []readme.Flag
	for _, g := range groups {
		for _, f := range g.Flags {
			if f.Hidden || f.Name == "help" {
				continue
			}
			out = append(out, readme.Flag{Name: f.Name, Default: strings.Join(f.Default, ","), Bool: f.IsBoolFlag(), Help: f.Help})
		}
	}
	if len(out) == 0 {
		t.Fatalf("no flags for command %q", command)
	}
	return out
}

func TestReadmeFlags(t *testing.T) {
	d := loadReadme(t)
	report(t, "daemon flags", readme.CheckFlags(table(t, d, "Command line", "flag"), commandFlags(t, "run")))
	report(t, "bench flags", readme.CheckFlags(table(t, d, "One-shot bench mode", "flag"), commandFlags(t, "bench")))
}

// readmeProbe names the probe whose defaults the key table is checked with.
const readmeProbe = "readme"

// configKeys flattens the effective configuration of a file that names one
// probe and sets nothing else: every key, with its default. The optional
// capacity block is switched on with the one key it requires (a ceiling),
// which is then read as its documented default, 0 (off); so is the replica
// block, with its brokers, read as unset.
func configKeys(t *testing.T) map[string]string {
	t.Helper()
	cfg, err := config.Parse([]byte("probes: [{name: " + readmeProbe + ", capacity: {max_rate: 1000}, replica: {kafka: {brokers: [b:9092]}}}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Probes[0].Capacity.MaxRate = 0
	cfg.Probes[0].Replica.Kafka.Brokers = nil
	out, err := cfg.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	var n yaml.Node
	if err := yaml.Unmarshal(out, &n); err != nil {
		t.Fatal(err)
	}
	keys := map[string]string{}
	flatten(n.Content[0], "", keys)
	// A key the printout leaves out (omitempty) is still a key: the schema
	// is the Go type's yaml tags.
	for _, k := range schemaKeys(reflect.TypeOf(config.Config{}), "") {
		if _, ok := keys[k]; !ok {
			keys[k] = ""
		}
	}
	keys["probes[].capacity"] = "" // a block: present = on
	keys["probes[].replica"] = ""
	return keys
}

var yamlMarshaler = reflect.TypeOf((*yaml.Marshaler)(nil)).Elem()

// schemaKeys are the leaf key paths of a configuration type.
func schemaKeys(t reflect.Type, prefix string) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if !f.IsExported() || name == "" || name == "-" {
			continue
		}
		key := strings.TrimPrefix(prefix+"."+name, ".")
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case ft.Kind() == reflect.Struct && (!ft.Implements(yamlMarshaler) || hasYAMLKeys(ft)):
			out = append(out, schemaKeys(ft, key)...)
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
			out = append(out, schemaKeys(ft.Elem(), key+"[]")...)
		default:
			out = append(out, key)
		}
	}
	return out
}

// hasYAMLKeys: a struct with keys of its own is a block of keys even when
// it prints itself (config.Payload quotes its delimiter).
func hasYAMLKeys(t reflect.Type) bool {
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); name != "" && name != "-" {
			return true
		}
	}
	return false
}

// flatten records each leaf of a mapping: a scalar, a list of scalars, a
// mapping of free names (empty by default: configs) or null; a list of
// mappings becomes name[].key.
func flatten(n *yaml.Node, prefix string, keys map[string]string) {
	join := func(k string) string {
		if prefix == "" {
			return k
		}
		return prefix + "." + k
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i].Value, n.Content[i+1]
		switch {
		case v.Kind == yaml.MappingNode && len(v.Content) == 0: // free names, e.g. create_topic.configs
			keys[join(k)] = "{}"
		case v.Kind == yaml.MappingNode:
			flatten(v, join(k), keys)
		case v.Kind == yaml.SequenceNode && len(v.Content) > 0 && v.Content[0].Kind == yaml.MappingNode:
			// The list itself is a key too (probes: [] has a meaning of its
			// own); unset by default, as its absence is.
			keys[join(k)] = ""
			flatten(v.Content[0], join(k)+"[]", keys)
		case v.Kind == yaml.SequenceNode:
			var items []string
			for _, it := range v.Content {
				items = append(items, it.Value)
			}
			keys[join(k)] = "[" + strings.Join(items, ", ") + "]"
		case v.Tag == "!!null":
			keys[join(k)] = ""
		default:
			keys[join(k)] = v.Value
		}
	}
}

func TestReadmeConfigKeys(t *testing.T) {
	d := loadReadme(t)
	report(t, "configuration keys", readme.CheckKeys(table(t, d, "Keys, defaults and ranges", "key"), configKeys(t),
		map[string]string{"<name>": readmeProbe, "<topic>": config.DefaultTopicPrefix + readmeProbe}))
}

// expositionConfig is the exporter whose exposition the Metrics table is
// held to: it must make every documented family appear, so a family that
// needs a setting to exist (an optional block) needs that setting here.
const expositionConfig = `
config_poll_interval: 1s
probes:
  - name: readme
    rate: 200
    record_size: 100
    lag_interval: 500ms
    capacity: {interval: 20s, step_duration: 1s, start_rate: 50, growth: 2, max_rate: 100, latency_slo: 10s}
`

// exposition runs the exporter on the embedded cluster until every family a
// running exporter has is there: records produced and consumed (latency
// histograms by broker), and a configuration poll.
func exposition(t *testing.T) map[string]readme.Family {
	t.Helper()
	emb := exportertest.Embedded(t)
	// The probe reads its topic back as its own replica (identity policy):
	// the replication families are part of the exposition too.
	replica := fmt.Sprintf("    replica: {kafka: {brokers: [%s]}, topic_policy: identity}\n", emb.Brokers()[0])
	x := exportertest.Start(t, expositionConfig+replica, emb.Brokers())
	x.WaitReady(t, 30*time.Second)
	// Families that appear later (after a poll, a record through each
	// leader) are awaited, then the set must hold still for over a config
	// poll and two lag intervals, so families added later by others count.
	var f scrape.Families
	last, stable := "", 0
	probetest.Eventually(t, 60*time.Second, "a configuration poll, observations by broker, a stable set of families", func() (bool, string) {
		f = x.Scrape(t)
		poll, _ := f.Value("kafka_bench_config_poll_success")
		e2e := len(f.Find("kafka_bench_end_to_end_latency_seconds"))
		topic := len(f.Find("kafka_bench_topic_config_info"))
		capacity := len(f.Find("kafka_bench_capacity_records_per_second"))
		names := make([]string, 0, len(f))
		for n := range f {
			names = append(names, n)
		}
		sort.Strings(names)
		if set := strings.Join(names, " "); set != last {
			last, stable = set, 0
		}
		stable++
		return poll == 1 && e2e > 0 && topic > 0 && capacity > 0 && stable > 6, fmt.Sprintf("poll success %v, e2e series %d, topic config series %d, capacity series %d (after a capacity run), %d families unchanged for %d scrapes", poll, e2e, topic, capacity, len(f), stable)
	})
	return families(f)
}

func families(f scrape.Families) map[string]readme.Family {
	out := map[string]readme.Family{}
	for name, mf := range f {
		fam := readme.Family{Type: strings.ToLower(mf.GetType().String()), Labels: map[string]bool{}}
		if mf.GetType() == dto.MetricType_UNTYPED {
			fam.Type = "untyped"
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				fam.Labels[l.GetName()] = true
			}
		}
		out[name] = fam
	}
	return out
}

// TestReadmeMetricsAndAlerts holds the Metrics table, every `metric` by
// `label` of the README, the runbooks and the labels of alerts/*.yml to one
// real exposition.
func TestReadmeMetricsAndAlerts(t *testing.T) {
	d := loadReadme(t)
	fams := exposition(t)
	report(t, "metrics", readme.CheckMetrics(table(t, d, "Metrics", "metric"), fams))
	report(t, "metric labels named in the README", d.CheckRefs(d.All(), fams))

	rules, err := alerts.Rules()
	if err != nil {
		t.Fatal(err)
	}
	runbooks, err := d.Section("Runbooks")
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]string{}
	for _, r := range rules {
		if r.Alert != "" {
			_, anchors[r.Alert], _ = strings.Cut(r.Annotations["runbook_url"], "#")
		}
	}
	report(t, "runbooks", d.CheckRunbooks(runbooks, anchors))
	report(t, "alerts/*.yml labels", checkRuleLabels(rules, fams))
	t.Run("drift is caught", func(t *testing.T) { metricDriftIsCaught(t, fams) })
}

// targetLabels are added by Prometheus, not the exporter; le by histograms.
var targetLabels = map[string]bool{"job": true, "instance": true, "le": true, "__name__": true}

// checkRuleLabels: each label a rule names (grouping, matching, selectors,
// $labels in annotations) is on at least one metric its expression reads,
// recorded series resolved to the metrics they are recorded from.
func checkRuleLabels(rules []alerts.Rule, fams map[string]readme.Family) []string {
	recorded := map[string][]string{}
	for _, r := range rules {
		if r.Record != "" {
			recorded[r.Record] = append(recorded[r.Record], readme.ExprMetrics(r.Expr)...)
		}
	}
	var base func(name string, seen map[string]bool) []string
	base = func(name string, seen map[string]bool) []string {
		if seen[name] {
			return nil
		}
		seen[name] = true
		src, ok := recorded[name]
		if !ok {
			return []string{name}
		}
		var out []string
		for _, s := range src {
			out = append(out, base(s, seen)...)
		}
		return out
	}
	var problems []string
	for _, r := range rules {
		name := r.Alert + r.Record
		metrics := map[string]bool{}
		for _, m := range readme.ExprMetrics(r.Expr) {
			for _, b := range base(m, map[string]bool{}) {
				metrics[b] = true
			}
		}
		text := r.Expr
		for _, a := range r.Annotations {
			text += "\n" + a
		}
		for _, l := range readme.ExprLabels(text) {
			if targetLabels[l] || r.Labels[l] != "" {
				continue
			}
			found := false
			var on []string
			for m := range metrics {
				m = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(m, "_bucket"), "_count"), "_sum")
				on = append(on, m)
				found = found || fams[m].Labels[l]
			}
			if !found {
				sort.Strings(on)
				problems = append(problems, fmt.Sprintf("alerts/%s: rule %s names label %s, which none of %v has", r.File, name, l, on))
			}
		}
	}
	return problems
}

// Files that need no row of the Layout table.
var layoutIgnore = []string{"README.md", "BENCHMARKS.md", "go.mod", "go.sum", ".gitignore", ".dockerignore"}

// repoFiles are the repository's files: tracked and new, not ignored.
func repoFiles(t *testing.T) []string {
	t.Helper()
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		if testenv.Strict() {
			t.Fatalf("git ls-files: %v (the Layout check needs a git checkout)", err)
		}
		t.Skipf("git ls-files: %v (the Layout check needs a git checkout)", err)
	}
	var files []string
	for _, f := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if f != "" {
			files = append(files, f)
		}
	}
	return files
}

func TestReadmeLayout(t *testing.T) {
	d := loadReadme(t)
	report(t, "layout", readme.CheckLayout(table(t, d, "Layout", "folder"), repoFiles(t), layoutIgnore))
}

// Links inside the repository resolve: README's own anchors and those of
// BENCHMARKS.md, which README cites for every sizing figure.
func TestReadmeLinks(t *testing.T) {
	report(t, "links", loadReadme(t).CheckLinks(repoRoot))
}

// The Go the README asks for is go.mod's.
func TestReadmeGoVersion(t *testing.T) {
	mod, err := os.ReadFile(repoRoot + "/go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod has no go line")
	}
	s, err := loadReadme(t).Section("The two commands")
	if err != nil {
		t.Fatal(err)
	}
	if want := "Go " + string(m[1]) + " or newer"; !strings.Contains(loadReadme(t).Text(s), want) {
		t.Errorf("README.md:%d (section %q): write %q, go.mod's go line", s.Line, s.Title, want)
	}
}

// Every top-level key of a bench file is named in the README's bench
// section and in --bench.file's help.
func TestReadmeBenchFileKeys(t *testing.T) {
	d := loadReadme(t)
	s, err := d.Section("One-shot bench mode")
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for _, c := range d.CodeIn(s) {
		k, _, _ := strings.Cut(c, ":")
		named[k] = true
	}
	var help string
	for _, c := range newApp(&flags{}, nil).Model().Commands {
		for _, f := range c.Flags {
			if f.Name == "bench.file" {
				help = f.Help
			}
		}
	}
	ft := reflect.TypeOf(bench.File{})
	for i := range ft.NumField() {
		key, _, _ := strings.Cut(ft.Field(i).Tag.Get("yaml"), ",")
		if key == "" || key == "-" {
			continue
		}
		if !named[key] {
			t.Errorf("README.md:%d (section %q): bench file key %s is not named: add `%s` to the list of keys", s.Line, s.Title, key, key)
		}
		if !strings.Contains(help, key) {
			t.Errorf("--bench.file help does not name the key %s: add it (cmd/kafka_bench_exporter/bench.go)", key)
		}
	}
}

// Lists the README spells out in prose are the program's lists: the
// failure reasons of kafka_bench_produce_failed_total and the numeric broker
// settings of kafka_bench_broker_config_value (and their count).
func TestReadmeLists(t *testing.T) {
	d := loadReadme(t)
	report(t, "failure reasons", checkReasons(t, d, probes.FailureReasons))
	report(t, "numeric broker settings", checkNumericSettings(t, d, configwatch.ValueAllowList))
}

func checkReasons(t *testing.T, d *readme.Doc, reasons []string) []string {
	metrics := table(t, d, "Metrics", "metric")
	for _, r := range metrics.Rows {
		if !strings.Contains(r.Cell(0), "`kafka_bench_produce_failed_total{reason}`") {
			continue
		}
		_, list, ok := strings.Cut(r.Cell(2), "reason ∈ ")
		if !ok {
			return []string{metrics.Where(r.Line) + `: write the reasons as "reason ∈ a, b, ..."`}
		}
		if got := strings.Split(list, ", "); !reflect.DeepEqual(got, reasons) {
			return []string{fmt.Sprintf("%s: reasons %q, the program's are %q (probes.FailureReasons)", metrics.Where(r.Line), got, reasons)}
		}
		return nil
	}
	return []string{metrics.Where(metrics.Line) + ": no row for `kafka_bench_produce_failed_total{reason}`"}
}

var settingRE = regexp.MustCompile(`^[a-z]+(\.[a-z]+)+$`)

func checkNumericSettings(t *testing.T, d *readme.Doc, allow []string) []string {
	s, err := d.Section("Configuration changes")
	if err != nil {
		t.Fatal(err)
	}
	para, line := "", 0
	for i := s.Line; i < s.End-1 && line == 0; i++ {
		if strings.HasPrefix(d.Lines[i], "**Numeric settings.**") {
			line = i + 1
			for j := i; j < s.End-1 && strings.TrimSpace(d.Lines[j]) != ""; j++ {
				para += d.Lines[j] + "\n"
			}
		}
	}
	if line == 0 {
		return []string{fmt.Sprintf("README.md:%d (section %q): no **Numeric settings.** paragraph", s.Line, s.Title)}
	}
	var problems, settings []string
	for _, c := range readme.Code(para) {
		if settingRE.MatchString(c) {
			settings = append(settings, c)
		}
	}
	if !reflect.DeepEqual(settings, allow) {
		problems = append(problems, fmt.Sprintf("README.md:%d: numeric settings %q, the program's are %q (configwatch.ValueAllowList)", line, settings, allow))
	}
	if want := fmt.Sprintf("brokers × %d series", len(allow)); !strings.Contains(para, want) {
		problems = append(problems, fmt.Sprintf("README.md:%d: write %q", line, want))
	}
	return problems
}
