package main

// README.md and docs/*.md are the user's contract. The flag, key and metric
// tables are generated (reference_test.go); these tests hold what cannot be
// generated to the program, so that drift fails here instead of waiting
// for a reader:
//
//	text                                              held to
//	links [x](#a), [x](page.md#a), in every page      the files and headings they point to
//	`metric` by `label`, `metric{label}` in any page  the exposition (embedded cluster): the metric has the label
//	docs/runbooks.md (headings)                       alerts/*.yml: one runbook per alert, runbook_url anchors
//	docs/layout.md, "folder"                          the files of the repository
//	docs/bench.md (prose)                             every bench file key named (and in --bench.file's help)
//	README.md, The two commands                       go.mod's Go version
//	README.md, Documentation                          every page of docs/ linked
//	docs/configuration.md, numeric settings           configwatch.ValueAllowList and its length
//	docs/configuration.md, Kafka property mapping     the producer and consumer keys of the schema
//
// and alerts/*.yml's labels (by, on, selectors, $labels) to the exposition.
// internal/readme parses the Markdown and compares; each message names the
// line to fix. readme_drift_test.go shows each check failing when one side
// changes alone. Run: go test -run 'TestReadme' ./cmd/kafka_bench_exporter

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/kafka-bench/kafka_bench_exporter/alerts"
	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/exporter/configwatch"
	"github.com/kafka-bench/kafka_bench_exporter/internal/exportertest"
	"github.com/kafka-bench/kafka_bench_exporter/internal/readme"
	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testenv"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

const repoRoot = "../.."

// loadDoc reads one page, named in messages by its path in the repository.
func loadDoc(t *testing.T, page string) *readme.Doc {
	t.Helper()
	d, err := readme.Load(repoRoot + "/" + page)
	if err != nil {
		t.Fatal(err)
	}
	d.Path = page
	return d
}

// loadDocs reads README.md and every page of docs/.
func loadDocs(t *testing.T) []*readme.Doc {
	t.Helper()
	docs, err := readme.LoadAll(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		d.Path = strings.TrimPrefix(d.Path, repoRoot+"/")
	}
	return docs
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

// expositionConfig is the exporter whose exposition the generated metrics
// page and the docs' label references are held to: it must make every family appear, so a family that
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

// lastExposition is the last stable exposition, which the generated
// metrics page (reference_test.go) reuses rather than start another run.
var lastExposition scrape.Families

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
	lastExposition = f
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

// TestReadmeMetricsAndAlerts holds every `metric` by `label` of the docs,
// the runbooks and the labels of alerts/*.yml to one real exposition.
func TestReadmeMetricsAndAlerts(t *testing.T) {
	fams := exposition(t)
	for _, d := range loadDocs(t) {
		report(t, "metric labels named in "+d.Path, d.CheckRefs(d.All(), fams))
	}

	rules, err := alerts.Rules()
	if err != nil {
		t.Fatal(err)
	}
	report(t, "runbooks", checkRunbooks(t, loadDoc(t, runbooksPage), rules))
	report(t, "alerts/*.yml labels", checkRuleLabels(rules, fams))
	t.Run("drift is caught", func(t *testing.T) { metricDriftIsCaught(t, fams) })
}

// runbooksPage holds a runbook per alert; every runbook_url points there.
const runbooksPage = "docs/runbooks.md"

func checkRunbooks(t *testing.T, d *readme.Doc, rules []alerts.Rule) []string {
	t.Helper()
	s, err := d.Section("Runbooks")
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]string{}
	var problems []string
	for _, r := range rules {
		if r.Alert == "" {
			continue
		}
		url, anchor, _ := strings.Cut(r.Annotations["runbook_url"], "#")
		anchors[r.Alert] = anchor
		if !strings.HasSuffix(url, "/"+runbooksPage) {
			problems = append(problems, fmt.Sprintf("alerts/%s: alert %s's runbook_url %s does not point to %s", r.File, r.Alert, url, runbooksPage))
		}
	}
	return append(problems, d.CheckRunbooks(s, anchors)...)
}

// targetLabels are added by Prometheus, not the exporter (cluster by the
// scrape configuration); le by histograms.
var targetLabels = map[string]bool{"job": true, "instance": true, "cluster": true, "le": true, "__name__": true}

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

// layoutPage holds the folder map.
const layoutPage = "docs/layout.md"

// Files that need no row of the Layout table.
var layoutIgnore = []string{"README.md", "go.mod", "go.sum", ".gitignore", ".dockerignore"}

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
	for f := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
		if f != "" {
			files = append(files, f)
		}
	}
	return files
}

func TestReadmeLayout(t *testing.T) {
	report(t, "layout", readme.CheckLayout(table(t, loadDoc(t, layoutPage), "Layout", "folder"), repoFiles(t), layoutIgnore))
}

// Links inside the repository resolve, from every page: files, and the
// headings their anchors name.
func TestReadmeLinks(t *testing.T) {
	for _, d := range loadDocs(t) {
		report(t, "links", d.CheckLinks(filepath.Join(repoRoot, filepath.Dir(d.Path))))
	}
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
	d := loadDoc(t, "README.md")
	s, err := d.Section("The two commands")
	if err != nil {
		t.Fatal(err)
	}
	if want := "Go " + string(m[1]) + " or newer"; !strings.Contains(d.Text(s), want) {
		t.Errorf("README.md:%d (section %q): write %q, go.mod's go line", s.Line, s.Title, want)
	}
}

// benchPage describes the bench file.
const benchPage = "docs/bench.md"

// Every top-level key of a bench file is named in the bench page's first
// section and in --bench.file's help.
func TestReadmeBenchFileKeys(t *testing.T) {
	d := loadDoc(t, benchPage)
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
	ft := reflect.TypeFor[spec.File]()
	for field := range ft.Fields() {
		key, _, _ := strings.Cut(field.Tag.Get("yaml"), ",")
		if key == "" || key == "-" {
			continue
		}
		if !named[key] {
			t.Errorf("%s:%d (section %q): bench file key %s is not named: add `%s` to the list of keys", d.Path, s.Line, s.Title, key, key)
		}
		if !strings.Contains(help, key) {
			t.Errorf("--bench.file help does not name the key %s: add it (cmd/kafka_bench_exporter/bench.go)", key)
		}
	}
}

// configPage describes the configuration and its changes.
const configPage = "docs/configuration.md"

// The numeric broker settings of kafka_bench_broker_config_value that the
// configuration page spells out are the program's (and their count).
func TestReadmeLists(t *testing.T) {
	report(t, "numeric broker settings", checkNumericSettings(t, loadDoc(t, configPage), configwatch.ValueAllowList))
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
		return []string{fmt.Sprintf("%s:%d (section %q): no **Numeric settings.** paragraph", d.Path, s.Line, s.Title)}
	}
	var problems, settings []string
	for _, c := range readme.Code(para) {
		if settingRE.MatchString(c) {
			settings = append(settings, c)
		}
	}
	if !reflect.DeepEqual(settings, allow) {
		problems = append(problems, fmt.Sprintf("%s:%d: numeric settings %q, the program's are %q (configwatch.ValueAllowList)", d.Path, line, settings, allow))
	}
	if want := fmt.Sprintf("brokers × %d series", len(allow)); !strings.Contains(para, want) {
		problems = append(problems, fmt.Sprintf("%s:%d: write %q", d.Path, line, want))
	}
	return problems
}

// probeOwnKeys are keys of producer: and consumer: that are the probe's
// own, not Kafka properties, so the mapping table has no row for them.
var probeOwnKeys = map[string]bool{"consumer.enabled": true, "consumer.consumers": true}

// checkPropertyMapping holds the Kafka property mapping table of the
// configuration page to the schema's producer and consumer keys: every
// Kafka property the file accepts has a row, and every row is one.
func checkPropertyMapping(t *testing.T, d *readme.Doc) []string {
	t.Helper()
	tb := table(t, d, "Kafka property mapping", "Kafka property")
	accepted := map[string]bool{}
	config.Walk(reflect.TypeFor[config.Config](), func(k config.Key) bool {
		if !k.Block && len(k.Parts) >= 3 && k.Parts[0] == "probes" && (k.Parts[1] == "producer" || k.Parts[1] == "consumer") {
			if key := k.Parts[1] + "." + strings.Join(k.Parts[2:], "."); !probeOwnKeys[key] {
				accepted[strings.Join(k.Parts[2:], ".")] = true
			}
		}
		return true
	})
	problems := tb.Check()
	seen := map[string]bool{}
	for _, r := range tb.Rows {
		for _, c := range readme.Code(r.Cell(0)) {
			name, _, _ := strings.Cut(c, "=")
			seen[name] = true
			if !accepted[name] {
				problems = append(problems, fmt.Sprintf("%s: %s is not a producer or consumer key of the configuration: remove the row or fix the name", tb.Where(r.Line), name))
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(accepted)) {
		if !seen[name] {
			problems = append(problems, fmt.Sprintf("%s: the configuration accepts %s, which has no row: add | `%s` | franz-go option | |", tb.Where(tb.Line), name, name))
		}
	}
	return problems
}

func TestReadmePropertyMapping(t *testing.T) {
	report(t, "Kafka property mapping", checkPropertyMapping(t, loadDoc(t, configPage)))
}

// checkDocsMap: README's Documentation section links every page of docs/,
// so a new page is found from the README.
func checkDocsMap(t *testing.T, d *readme.Doc, pages []*readme.Doc) []string {
	t.Helper()
	s, err := d.Section("Documentation")
	if err != nil {
		t.Fatal(err)
	}
	text := d.Text(s)
	var problems []string
	for _, p := range pages {
		if strings.HasPrefix(p.Path, "docs/") && !strings.Contains(text, "]("+p.Path+")") {
			problems = append(problems, fmt.Sprintf("%s:%d (section %q): %s is not in the map of the docs: add a row [%s](%s)", d.Path, s.Line, s.Title, p.Path, p.Path, p.Path))
		}
	}
	return problems
}

func TestReadmeDocsMap(t *testing.T) {
	report(t, "map of the docs", checkDocsMap(t, loadDoc(t, "README.md"), loadDocs(t)))
}
