// Package promtest runs a real Prometheus server for end-to-end tests: it
// scrapes its targets every second, evaluates the given rule files every
// second, and is queried through its HTTP API.
//
// The server is Prometheus 3, built from its Go module by
// scripts/prometheus.sh (the one place its version is pinned); Debian's
// Prometheus 2.x on PATH is kept for one smoke test (Debian). Mode chooses
// how histograms are ingested: classic buckets only, native histograms only,
// or both, the three setups the dashboards and rules must answer in.
package promtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	promapi "github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"github.com/kafka-bench/kafka_bench_exporter/internal/testenv"
)

// JobName is the scrape job of the generated prometheus.yml.
const JobName = "kafka_bench"

// Binaries are the paths of prometheus and promtool.
type Binaries struct {
	Prometheus, Promtool string
}

var (
	v3Once sync.Once
	v3Bin  Binaries
	v3Err  error
)

// Required returns Prometheus 3 and its promtool, built by
// scripts/prometheus.sh when missing (once; scripts/test.sh builds them
// beforehand). When that fails it fails the test if testenv.Strict (CI=true
// or KAFKA_BENCH_INTEGRATION=1), and skips it otherwise.
func Required(t testing.TB) Binaries {
	t.Helper()
	v3Once.Do(func() {
		_, file, _, _ := runtime.Caller(0)
		script := filepath.Join(filepath.Dir(file), "..", "..", "scripts", "prometheus.sh")
		for _, x := range []struct {
			arg string
			dst *string
		}{{"path", &v3Bin.Prometheus}, {"promtool-path", &v3Bin.Promtool}} {
			var stderr bytes.Buffer
			cmd := exec.Command(script, x.arg)
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				v3Err = fmt.Errorf("scripts/prometheus.sh %s: %w\n%s", x.arg, err, stderr.String())
				return
			}
			*x.dst = strings.TrimSpace(string(out))
		}
	})
	if v3Err != nil {
		msg := "Prometheus 3 is needed: " + v3Err.Error()
		if testenv.Strict() {
			t.Fatalf("%s; required because CI=true or KAFKA_BENCH_INTEGRATION=1", msg)
		}
		t.Skipf("skipping: %s; set KAFKA_BENCH_INTEGRATION=1 to make this a failure", msg)
	}
	return v3Bin
}

// Debian finds prometheus and promtool on PATH (Debian's 2.x package, which
// scripts/test.sh installs), for the smoke test that the dashboards still
// answer on Prometheus 2 with classic histograms. When one is missing it
// fails the test if testenv.Strict, and skips it otherwise.
func Debian(t testing.TB) Binaries {
	t.Helper()
	var b Binaries
	var missing []string
	for _, x := range []struct {
		name string
		dst  *string
	}{{"prometheus", &b.Prometheus}, {"promtool", &b.Promtool}} {
		p, err := exec.LookPath(x.name)
		if err != nil {
			missing = append(missing, err.Error())
			continue
		}
		*x.dst = p
	}
	if len(missing) > 0 {
		msg := fmt.Sprintf("Debian's prometheus package is needed: %s", strings.Join(missing, "; "))
		if testenv.Strict() {
			t.Fatalf("%s; required because CI=true or KAFKA_BENCH_INTEGRATION=1", msg)
		}
		t.Skipf("skipping: %s; set KAFKA_BENCH_INTEGRATION=1 to make this a failure", msg)
	}
	return b
}

// Mode is how Prometheus ingests the exporter's histograms.
type Mode int

const (
	// Classic scrapes the classic buckets only (_bucket, _sum, _count):
	// Prometheus 3's default, and every Prometheus 2.
	Classic Mode = iota
	// Native scrapes native histograms only (scrape_native_histograms: true,
	// always_scrape_classic_histograms: false): no _bucket series.
	Native
	// Both scrapes native histograms and the classic buckets
	// (always_scrape_classic_histograms: true).
	Both
)

// Modes are all ingestion modes.
var Modes = []Mode{Classic, Native, Both}

func (m Mode) String() string {
	switch m {
	case Native:
		return "native"
	case Both:
		return "both"
	}
	return "classic"
}

// ScrapeTarget is one target of job JobName and its target labels (e.g.
// cluster), as a static_configs entry sets them.
type ScrapeTarget struct {
	Addr   string
	Labels map[string]string
}

// Config is what Start runs.
type Config struct {
	// Target is the host:port scraped by job JobName every second.
	Target string
	// Targets are scraped by job JobName too, each with its labels.
	Targets []ScrapeTarget
	// Mode is how histograms are ingested (Prometheus 3 only).
	Mode Mode
	// Binaries is the Prometheus to run; nil: Required (Prometheus 3).
	Binaries *Binaries
	// RuleFiles are written next to prometheus.yml and loaded, by file name.
	RuleFiles map[string][]byte
}

// Prometheus is a running server.
type Prometheus struct {
	URL     string // e.g. http://127.0.0.1:41235
	Dir     string // holds prometheus.yml, the rule files, data/ and prometheus.log
	LogFile string

	client *http.Client
	proc   *os.Process
	done   chan struct{} // closed when the process has exited
	// waitErr is the process's exit status; read only after done is closed.
	waitErr error
}

// Start writes the configuration into t.TempDir(), checks it with promtool,
// starts Prometheus on a free loopback port and waits for /-/ready. The
// process is killed in t.Cleanup; if the test failed, the tail of its log is
// printed.
func Start(t testing.TB, cfg Config) *Prometheus {
	t.Helper()
	var bin Binaries
	if cfg.Binaries != nil {
		bin = *cfg.Binaries
	} else {
		bin = Required(t)
	}
	dir := t.TempDir() // before our Cleanup, so the process is dead before the removal

	var ruleFiles []string
	for name, content := range cfg.RuleFiles {
		if name != filepath.Base(name) {
			t.Fatalf("rule file name %q must be a plain file name", name)
		}
		if err := os.WriteFile(filepath.Join(dir, name), content, 0o644); err != nil {
			t.Fatal(err)
		}
		ruleFiles = append(ruleFiles, name)
	}
	sort.Strings(ruleFiles)
	configFile := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(configFile, configYAML(cfg, ruleFiles), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bin.Promtool, "check", "config", configFile).CombinedOutput(); err != nil {
		t.Fatalf("promtool check config %s: %v\n%s", configFile, err, out)
	}

	// The port is free when chosen but may be taken before Prometheus binds
	// it; retry with another one in that case.
	var lastErr error
	for attempt := range 3 {
		p, err := start(t, bin.Prometheus, dir, configFile, attempt)
		if err == nil {
			return p
		}
		lastErr = err
		if !errors.Is(err, errAddrInUse) {
			break
		}
	}
	t.Fatalf("starting prometheus: %v", lastErr)
	return nil
}

// configYAML is the generated prometheus.yml; file names, targets and
// labels are double-quoted with strconv.Quote, valid YAML for such plain
// strings.
func configYAML(cfg Config, ruleFiles []string) []byte {
	var b strings.Builder
	b.WriteString("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n")
	switch cfg.Mode {
	case Native:
		b.WriteString("  scrape_native_histograms: true\n  always_scrape_classic_histograms: false\n")
	case Both:
		b.WriteString("  scrape_native_histograms: true\n  always_scrape_classic_histograms: true\n")
	}
	b.WriteString("rule_files:\n")
	if len(ruleFiles) == 0 {
		b.WriteString("  []\n")
	}
	for _, f := range ruleFiles {
		fmt.Fprintf(&b, "  - %s\n", strconv.Quote(f))
	}
	targets := cfg.Targets
	if cfg.Target != "" {
		targets = append([]ScrapeTarget{{Addr: cfg.Target}}, targets...)
	}
	fmt.Fprintf(&b, "scrape_configs:\n  - job_name: %s\n    static_configs:\n", strconv.Quote(JobName))
	for _, tg := range targets {
		fmt.Fprintf(&b, "      - targets: [%s]\n", strconv.Quote(tg.Addr))
		if len(tg.Labels) > 0 {
			keys := make([]string, 0, len(tg.Labels))
			for k := range tg.Labels {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			b.WriteString("        labels:\n")
			for _, k := range keys {
				fmt.Fprintf(&b, "          %s: %s\n", k, strconv.Quote(tg.Labels[k]))
			}
		}
	}
	return []byte(b.String())
}

var errAddrInUse = errors.New("listen address already in use")

func start(t testing.TB, binary, dir, configFile string, attempt int) (*Prometheus, error) {
	t.Helper()
	port, err := testenv.LoopbackPort()
	if err != nil {
		return nil, err
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	logFile := filepath.Join(dir, fmt.Sprintf("prometheus-%d.log", attempt))
	logf, err := os.Create(logFile)
	if err != nil {
		return nil, err
	}
	// The child holds its own descriptor and writes through it; ours
	// writes nothing.
	defer func() { _ = logf.Close() }()

	cmd := exec.Command(binary,
		"--config.file="+configFile,
		"--storage.tsdb.path="+filepath.Join(dir, fmt.Sprintf("data-%d", attempt)),
		"--web.listen-address="+addr,
		"--log.level=info",
	)
	cmd.Dir = dir
	cmd.Stdout = logf
	cmd.Stderr = logf
	cmd.SysProcAttr = sysProcAttr()

	p := &Prometheus{
		URL:     "http://" + addr,
		Dir:     dir,
		LogFile: logFile,
		client:  &http.Client{Timeout: 10 * time.Second},
		done:    make(chan struct{}),
	}
	if err := testenv.StartTied(cmd); err != nil {
		return nil, err
	}
	p.proc = cmd.Process
	go func() {
		p.waitErr = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.Kill()
		if t.Failed() {
			t.Logf("prometheus log (%s), last lines:\n%s", p.LogFile, p.LogTail(60))
		}
	})

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for {
		select {
		case <-p.done:
			log := p.LogTail(30)
			if strings.Contains(log, "address already in use") {
				return nil, fmt.Errorf("%w: %s", errAddrInUse, addr)
			}
			exit := p.waitErr
			if exit == nil {
				exit = errors.New("exit status 0")
			}
			return nil, fmt.Errorf("prometheus exited before it was ready (%w); log %s:\n%s", exit, logFile, log)
		case <-ctx.Done():
			return nil, fmt.Errorf("prometheus not ready at %s/-/ready after 60s; log %s:\n%s", p.URL, logFile, p.LogTail(30))
		case <-time.After(100 * time.Millisecond):
		}
		if resp, err := p.client.Get(p.URL + "/-/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p, nil
			}
		}
	}
}

// Kill kills Prometheus (its whole process group) and waits for it to exit.
// Safe to call more than once.
func (p *Prometheus) Kill() {
	if p.proc == nil {
		return
	}
	select {
	case <-p.done:
		return
	default:
	}
	kill(p.proc)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
	}
}

// LogTail returns the last n lines of the Prometheus log.
func (p *Prometheus) LogTail(n int) string {
	b, err := os.ReadFile(p.LogFile)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// api is the Prometheus HTTP API client of client_golang, over the
// server's own http.Client.
func (p *Prometheus) api() (promv1.API, error) {
	c, err := promapi.NewClient(promapi.Config{Address: p.URL, Client: p.client})
	if err != nil {
		return nil, err
	}
	return promv1.NewAPI(c), nil
}

// Series is one result element of a query: its labels (with __name__ when
// the result keeps it) and its value (the last one for a range vector). A
// native-histogram sample has Histogram set and Value is its count.
type Series struct {
	Labels    map[string]string
	Value     float64
	Histogram bool
}

// Query runs an instant query at the current time and returns the result
// type (vector, scalar, matrix or string) and the result series; a scalar or
// string is one series without labels.
func (p *Prometheus) Query(ctx context.Context, expr string) (string, []Series, error) {
	return p.query(ctx, expr, time.Time{})
}

// QueryAt runs an instant query at time at, so that several servers can be
// asked about the same moment.
func (p *Prometheus) QueryAt(ctx context.Context, expr string, at time.Time) (string, []Series, error) {
	return p.query(ctx, expr, at)
}

func (p *Prometheus) query(ctx context.Context, expr string, at time.Time) (string, []Series, error) {
	a, err := p.api()
	if err != nil {
		return "", nil, err
	}
	v, _, _, err := a.Query(ctx, expr, at)
	if err != nil {
		return "", nil, fmt.Errorf("query %q: %w", expr, err)
	}
	var out []Series
	switch v := v.(type) {
	case model.Vector:
		for _, s := range v {
			out = append(out, sampleSeries(s.Metric, s.Value, s.Histogram))
		}
	case model.Matrix:
		for _, s := range v {
			se := Series{Labels: labelMap(s.Metric)}
			if n := len(s.Values); n > 0 {
				se.Value = float64(s.Values[n-1].Value)
			} else if n := len(s.Histograms); n > 0 {
				se.Value, se.Histogram = float64(s.Histograms[n-1].Histogram.Count), true
			}
			out = append(out, se)
		}
	case *model.Scalar:
		out = append(out, Series{Labels: map[string]string{}, Value: float64(v.Value)})
	case *model.String:
		// A string result is NaN as a number.
		f, err := strconv.ParseFloat(v.Value, 64)
		if err != nil {
			f = math.NaN()
		}
		out = append(out, Series{Labels: map[string]string{}, Value: f})
	default:
		return "", nil, fmt.Errorf("query %q: unknown result type %T", expr, v)
	}
	return v.Type().String(), out, nil
}

// sampleSeries is one vector element: a float sample's value, or a native
// histogram's count.
func sampleSeries(m model.Metric, v model.SampleValue, h *model.SampleHistogram) Series {
	se := Series{Labels: labelMap(m), Value: float64(v)}
	if h != nil {
		se.Value, se.Histogram = float64(h.Count), true
	}
	return se
}

func labelMap[M ~map[model.LabelName]model.LabelValue](m M) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[string(k)] = string(v)
	}
	return out
}

// Alert is one active (pending or firing) alert.
type Alert struct {
	Name   string // the alertname label
	State  string // pending or firing
	Labels map[string]string
	Value  string
}

// Alerts returns the active alerts (GET /api/v1/alerts).
func (p *Prometheus) Alerts(ctx context.Context) ([]Alert, error) {
	a, err := p.api()
	if err != nil {
		return nil, err
	}
	res, err := a.Alerts(ctx)
	if err != nil {
		return nil, fmt.Errorf("alerts: %w", err)
	}
	out := make([]Alert, 0, len(res.Alerts))
	for _, al := range res.Alerts {
		labels := labelMap(al.Labels)
		out = append(out, Alert{Name: labels["alertname"], State: string(al.State), Labels: labels, Value: al.Value})
	}
	return out, nil
}

// Rule is one loaded recording or alerting rule and its evaluation health.
type Rule struct {
	Group, File string
	Name        string // record or alert name
	Type        string // recording or alerting
	Query       string
	Health      string // ok, err or unknown (not evaluated yet)
	LastError   string
}

// Rules returns every loaded rule (GET /api/v1/rules).
func (p *Prometheus) Rules(ctx context.Context) ([]Rule, error) {
	a, err := p.api()
	if err != nil {
		return nil, err
	}
	res, err := a.Rules(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("rules: %w", err)
	}
	var out []Rule
	for _, g := range res.Groups {
		for _, r := range g.Rules {
			rule := Rule{Group: g.Name, File: filepath.Base(g.File)}
			switch r := r.(type) {
			case promv1.AlertingRule:
				rule.Name, rule.Type, rule.Query, rule.Health, rule.LastError = r.Name, string(promv1.RuleTypeAlerting), r.Query, string(r.Health), r.LastError
			case promv1.RecordingRule:
				rule.Name, rule.Type, rule.Query, rule.Health, rule.LastError = r.Name, string(promv1.RuleTypeRecording), r.Query, string(r.Health), r.LastError
			default:
				return nil, fmt.Errorf("rules: group %s: unknown rule %T", g.Name, r)
			}
			out = append(out, rule)
		}
	}
	return out, nil
}

// Target is one active scrape target.
type Target struct {
	Labels    map[string]string // job, instance, ...
	ScrapeURL string
	Health    string // up, down or unknown
	LastError string
}

// Targets returns the active scrape targets (GET /api/v1/targets).
func (p *Prometheus) Targets(ctx context.Context) ([]Target, error) {
	a, err := p.api()
	if err != nil {
		return nil, err
	}
	res, err := a.Targets(ctx)
	if err != nil {
		return nil, fmt.Errorf("targets: %w", err)
	}
	out := make([]Target, 0, len(res.Active))
	for _, at := range res.Active {
		out = append(out, Target{Labels: labelMap(at.Labels), ScrapeURL: at.ScrapeURL, Health: string(at.Health), LastError: at.LastError})
	}
	return out, nil
}

// WaitTargetsUp polls until every active target has been scraped
// successfully (health up), failing the test after timeout, and returns the
// targets.
func (p *Prometheus) WaitTargetsUp(t testing.TB, timeout time.Duration) []Target {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var last string
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		targets, err := p.Targets(ctx)
		cancel()
		if err != nil {
			last = err.Error()
		} else {
			up := len(targets) > 0
			var states []string
			for _, tg := range targets {
				up = up && tg.Health == "up"
				states = append(states, fmt.Sprintf("%s %s %s", tg.ScrapeURL, tg.Health, tg.LastError))
			}
			if up {
				return targets
			}
			last = fmt.Sprintf("%d targets: %s", len(targets), strings.Join(states, "; "))
		}
		if time.Now().After(deadline) {
			t.Fatalf("prometheus targets not up after %s: %s", timeout, last)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
