package main

// The hand-written pages (README.md, docs/*.md, CONTRIBUTING.md, the chart's
// README) are the user's contract. The flag, key and metric tables are
// generated (reference_test.go); these tests hold what cannot be generated
// to the program, so that drift fails here instead of waiting for a reader:
//
//	text                                        held to
//	links [x](#a), [x](page.md#a), tables       the files and headings they point to; cells per row
//	`--flag`, `kafka_bench_x`, `config.key`     the kingpin model, metric_names.txt and rules, the schema
//	`metric` by `label`, `metric{label}`        the exposition (embedded cluster): the metric has the label
//	docs/runbooks.md (headings)                 alerts/*.yml: one runbook per alert, runbook_url anchors
//	docs/layout.md, the folder map              the files of the repository
//	docs/bench.md, One-shot bench mode          every bench file key named (and in --bench.file's help)
//	README.md                                   go.mod's Go version; a link to every page of docs/
//
// internal/doccheck reads the Markdown and compares; each message names the
// line to fix. docs_drift_test.go shows each check failing when one side
// changes alone. Run: go test -run 'TestDocs' ./cmd/kafka_bench_exporter

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kingpin/v2"

	"github.com/kafka-bench/kafka_bench_exporter/alerts"
	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/internal/doccheck"
	"github.com/kafka-bench/kafka_bench_exporter/internal/exportertest"
	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testenv"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

const repoRoot = "../.."

// handWritten are the pages held to the program; docs/ adds its own.
var handWritten = []string{"README.md", "CONTRIBUTING.md", "CHANGELOG.md", "SECURITY.md", "deploy/helm/kafka-bench-exporter/README.md"}

// loadDoc reads one page, named in messages by its path in the repository.
func loadDoc(t *testing.T, page string) *doccheck.Doc {
	t.Helper()
	d, err := doccheck.Load(repoRoot, page)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// loadDocs reads the hand-written pages and every page of docs/.
func loadDocs(t *testing.T) []*doccheck.Doc {
	t.Helper()
	pages := slices.Clone(handWritten)
	err := filepath.WalkDir(repoRoot+"/docs", func(p string, _ os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".md") {
			pages = append(pages, strings.TrimPrefix(p, repoRoot+"/"))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	docs := make([]*doccheck.Doc, len(pages))
	for i, p := range pages {
		docs[i] = loadDoc(t, p)
	}
	return docs
}

// section is a section's prose and the line of its heading.
func section(t *testing.T, d *doccheck.Doc, title string) (string, int) {
	t.Helper()
	text, line, err := d.Section(title)
	if err != nil {
		t.Fatal(err)
	}
	return text, line
}

func report(t *testing.T, what string, problems []string) {
	t.Helper()
	for _, p := range problems {
		t.Errorf("%s: %s", what, p)
	}
}

// Links inside the repository resolve, from every page: files, and the
// headings their anchors name; and every table row has its header's cells.
func TestDocsLinks(t *testing.T) {
	for _, d := range loadDocs(t) {
		report(t, "links", d.CheckLinks(repoRoot))
		report(t, "tables", d.CheckTables())
	}
}

// foreignFlags are other programs' flags the docs name, and the programs.
var foreignFlags = map[string]string{
	"warmup-records": "ProducerPerformance", "record-size": "ProducerPerformance", "payload-file": "ProducerPerformance",
	"transactional-id": "ProducerPerformance", "transaction-duration-ms": "ProducerPerformance",
	"messages": "ConsumerPerformance", "clusters": "MirrorMaker 2", "add-scram": "kafka-storage.sh",
	"collector.netdev.device-exclude": "node_exporter", "kafka.labels": "kafka_exporter", "ulimit": "docker run",
}

// programNames are the flags, config keys and metric names the program
// has, for the prose that names them.
func programNames(t *testing.T) doccheck.Names {
	t.Helper()
	n := doccheck.Names{Flags: map[string]bool{}, Keys: map[string]bool{}, Metrics: map[string]bool{
		"kafka_bench_exporter": true, // the binary
	}}
	addFlags := func(g *kingpin.FlagGroupModel) {
		for _, f := range g.Flags {
			n.Flags[f.Name] = true
		}
	}
	m := newApp(&flags{}, nil).Model()
	addFlags(m.FlagGroupModel)
	var cmds func([]*kingpin.CmdModel)
	cmds = func(cs []*kingpin.CmdModel) {
		for _, c := range cs {
			addFlags(c.FlagGroupModel)
			cmds(c.Commands)
		}
	}
	cmds(m.Commands)
	for f := range foreignFlags {
		n.Flags[f] = true
	}
	refs, err := config.Reference()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range refs {
		for p, more := r.Path, true; more; p, _, more = strings.CutLast(p, ".") {
			n.Keys[p] = true
		}
	}
	contract, err := os.ReadFile(repoRoot + "/exporter/testdata/metric_names.txt")
	if err != nil {
		t.Fatal(err)
	}
	for name := range strings.FieldsSeq(string(contract)) {
		n.Metrics[name] = true
	}
	rules, err := alerts.Rules()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rules {
		n.Metrics[r.Record], n.Metrics[r.Group] = true, true
	}
	return n
}

// Every flag, config key and metric the prose names exists.
func TestDocsNames(t *testing.T) {
	n := programNames(t)
	for _, d := range loadDocs(t) {
		report(t, "names", d.CheckNames(n))
	}
}

// expositionConfig is the exporter whose exposition the generated metrics
// page and the docs' label references are held to: it must make every family appear, so a family that
// needs a setting to exist (an optional block) needs that setting here.
const expositionConfig = `
config_poll_interval: 1s
groups: {probe_groups: true, interval: 1s, stall_window: 1s, granularity: partition}
probes:
  - name: readme
    rate: 200
    record_size: 100
    lag_interval: 500ms
    capacity: {interval: 20s, step_duration: 1s, start_rate: 50, growth: 2, max_rate: 100, latency_slo: 10s}
    catch_up: [{from: start, interval: 3s, max_duration: 2s}]
  - name: readme-share
    rate: 50
    record_size: 100
    lag_interval: 500ms
    consumer: {kind: share}
  - name: readme-txn
    rate: 50
    record_size: 100
    lag_interval: 500ms
    producer: {transactional.id: readme, transaction.duration.ms: 500, transaction.abort.ratio: 0.5}
    consumer: {isolation.level: read_committed}
`

// lastExposition is the last stable exposition, which the generated
// metrics page (reference_test.go) reuses rather than start another run.
var lastExposition scrape.Families

// exposition runs the exporter on the embedded cluster until every family a
// running exporter has is there: records produced and consumed (latency
// histograms by broker), and a configuration poll. It returns each
// family's labels.
func exposition(t *testing.T) map[string]map[string]bool {
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
		share := len(f.Find("kafka_bench_share_group_lag_records")) + len(f.Find("kafka_bench_share_group_members"))
		groups := len(f.Find("kafka_bench_group_lag_seconds"))
		catchUp := len(f.Find("kafka_bench_catchup_records_per_second"))
		names := slices.Sorted(maps.Keys(f))
		if set := strings.Join(names, " "); set != last {
			last, stable = set, 0
		}
		stable++
		return poll == 1 && e2e > 0 && topic > 0 && capacity > 0 && share == 2 && groups > 0 && catchUp > 0 && stable > 6, fmt.Sprintf("poll success %v, e2e series %d, topic config series %d, capacity series %d (after a capacity run), share group series %d of 2, group lag series %d, catch-up series %d (after a catch-up read), %d families unchanged for %d scrapes", poll, e2e, topic, capacity, share, groups, catchUp, len(f), stable)
	})
	lastExposition = f
	labels := map[string]map[string]bool{}
	for name, mf := range f {
		labels[name] = map[string]bool{}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				labels[name][l.GetName()] = true
			}
		}
	}
	return labels
}

// TestDocsMetricsAndAlerts holds every `metric` by `label` of the docs,
// the runbooks and the labels of alerts/*.yml to one real exposition.
func TestDocsMetricsAndAlerts(t *testing.T) {
	labels := exposition(t)
	for _, d := range loadDocs(t) {
		report(t, "metric labels", d.CheckLabels(labels))
	}
	rules, err := alerts.Rules()
	if err != nil {
		t.Fatal(err)
	}
	report(t, "runbooks", checkRunbooks(loadDoc(t, runbooksPage), rules))
	report(t, "alerts/*.yml labels", checkRuleLabels(rules, labels))
	t.Run("drift is caught", func(t *testing.T) { metricDriftIsCaught(t, labels) })
}

// runbooksPage holds a runbook per alert; every runbook_url points there.
const runbooksPage = "docs/runbooks.md"

func checkRunbooks(d *doccheck.Doc, rules []alerts.Rule) []string {
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
	return append(problems, d.CheckRunbooks(anchors)...)
}

// layoutPage holds the folder map.
const layoutPage = "docs/layout.md"

// Files that need no row of the folder map.
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
			t.Fatalf("git ls-files: %v (the folder map check needs a git checkout)", err)
		}
		t.Skipf("git ls-files: %v (the folder map check needs a git checkout)", err)
	}
	var files []string
	for f := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
		// A file deleted in the work tree but not yet in the index is gone.
		if _, err := os.Stat(filepath.Join(root, f)); f != "" && err == nil {
			files = append(files, f)
		}
	}
	return files
}

func TestDocsLayout(t *testing.T) {
	report(t, "layout", loadDoc(t, layoutPage).CheckLayout(repoFiles(t), layoutIgnore))
}

// The Go the README names is go.mod's: the toolchain GOTOOLCHAIN selects.
func TestDocsGoVersion(t *testing.T) {
	mod, err := os.ReadFile(repoRoot + "/go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod has no go line")
	}
	text, line := section(t, loadDoc(t, "README.md"), "The two commands")
	if want := "Go " + string(m[1]) + ", the `go` line of `go.mod`"; !strings.Contains(text, want) {
		t.Errorf("README.md:%d (section %q): write %q, go.mod's go line", line, "The two commands", want)
	}
	// The run command brings its toolchain: a machine's own Go may be older.
	readme := strings.Join(loadDoc(t, "README.md").Lines, "\n")
	if want := "GOTOOLCHAIN=go" + string(m[1]) + " go run ./cmd/kafka_bench_exporter"; !strings.Contains(readme, want) {
		t.Errorf("README.md: the run command is not %q (go.mod's go line)", want)
	}
}

// benchPage describes the bench file.
const benchPage = "docs/bench.md"

// Every top-level key of a bench file is named in the bench page's first
// section and in --bench.file's help.
func TestDocsBenchFileKeys(t *testing.T) {
	text, line := section(t, loadDoc(t, benchPage), "One-shot bench mode")
	named := map[string]bool{}
	for _, c := range doccheck.Code(text) {
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
	for field := range reflect.TypeFor[spec.File]().Fields() {
		key, _, _ := strings.Cut(field.Tag.Get("yaml"), ",")
		if key == "" || key == "-" {
			continue
		}
		if !named[key] {
			t.Errorf("%s:%d (section %q): bench file key %s is not named: add `%s` to the list of keys", benchPage, line, "One-shot bench mode", key, key)
		}
		if !strings.Contains(help, key) {
			t.Errorf("--bench.file help does not name the key %s: add it (cmd/kafka_bench_exporter/bench.go)", key)
		}
	}
}

// checkDocsMap: README's Documentation section links every page of docs/,
// so a new page is found from the README.
func checkDocsMap(t *testing.T, d *doccheck.Doc, pages []*doccheck.Doc) []string {
	t.Helper()
	text, line := section(t, d, "Documentation")
	var problems []string
	for _, p := range pages {
		if strings.HasPrefix(p.Path, "docs/") && !strings.Contains(text, "]("+p.Path+")") {
			problems = append(problems, fmt.Sprintf("%s:%d (section %q): %s is not in the map of the docs: add a row [%s](%s)", d.Path, line, "Documentation", p.Path, p.Path, p.Path))
		}
	}
	return problems
}

func TestDocsMap(t *testing.T) {
	report(t, "map of the docs", checkDocsMap(t, loadDoc(t, "README.md"), loadDocs(t)))
}
