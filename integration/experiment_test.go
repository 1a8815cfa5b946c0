package integration

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-bench/kafka_bench_exporter/bench/brokercfg"
	"github.com/kafka-bench/kafka_bench_exporter/bench/run"
	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/internal/kafkatest"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testbin"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testenv"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
	"github.com/kafka-bench/kafka_bench_exporter/probes/promsink"
)

// Config experiments change these; the tests check they come back.
const (
	ioThreads   = "num.io.threads"
	compression = "compression.type"
)

// configState is one configuration as a broker reports it.
type configState struct {
	value  string
	source string
}

// experimentState reads num.io.threads from every broker and the topic's
// compression.type as every broker reports it.
func experimentState(t *testing.T, cl *kgo.Client, brokers []int32, topic string) map[string]configState {
	t.Helper()
	st, err := readExperimentState(cl, brokers, topic)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func readExperimentState(cl *kgo.Client, brokers []int32, topic string) (map[string]configState, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out := map[string]configState{}
	for _, id := range brokers {
		req := kmsg.NewPtrDescribeConfigsRequest()
		for _, r := range []struct {
			typ  kmsg.ConfigResourceType
			name string
			key  string
		}{{kmsg.ConfigResourceTypeBroker, fmt.Sprint(id), ioThreads}, {kmsg.ConfigResourceTypeTopic, topic, compression}} {
			rr := kmsg.NewDescribeConfigsRequestResource()
			rr.ResourceType, rr.ResourceName, rr.ConfigNames = r.typ, r.name, []string{r.key}
			req.Resources = append(req.Resources, rr)
		}
		resp, err := req.RequestWith(ctx, cl.Broker(int(id)))
		if err != nil {
			return nil, fmt.Errorf("DescribeConfigs on broker %d: %w", id, err)
		}
		for _, rr := range resp.Resources {
			if err := kerr.ErrorForCode(rr.ErrorCode); err != nil {
				return nil, fmt.Errorf("DescribeConfigs on broker %d, %s: %w", id, rr.ResourceName, err)
			}
			for _, c := range rr.Configs {
				key := fmt.Sprintf("broker %d %s", id, c.Name)
				if rr.ResourceType == kmsg.ConfigResourceTypeTopic {
					key = fmt.Sprintf("topic on %d %s", id, c.Name)
				}
				v := "null"
				if c.Value != nil {
					v = *c.Value
				}
				out[key] = configState{v, c.Source.String()}
			}
		}
	}
	if len(out) != 2*len(brokers) {
		return nil, fmt.Errorf("read %d configuration values, want %d: %v", len(out), 2*len(brokers), out)
	}
	return out, nil
}

// experimentSetup returns a client, an admin client and the broker ids, and
// creates topic. The last broker gets a num.io.threads of its own, so that a
// restore must set that value back (and delete the bench's value on any
// other broker, and on the topic, which has no compression.type of its own).
func experimentSetup(t *testing.T, c *kafkatest.Cluster, topic string) (*kgo.Client, *kadm.Client, []int32) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Bootstrap()...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	adm := kadm.NewClient(cl)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ids, err := c.BrokerIDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	createTopic(t, ctx, adm, topic, 3, int16(len(ids)))
	own := ids[len(ids)-1]
	resps, err := adm.AlterBrokerConfigs(ctx, []kadm.AlterConfig{{Op: kadm.SetConfig, Name: ioThreads, Value: new("6")}}, own)
	if err == nil {
		err = resps[0].Err
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = adm.AlterBrokerConfigs(context.Background(), []kadm.AlterConfig{{Op: kadm.DeleteConfig, Name: ioThreads}}, own)
	})
	probetest.Eventually(t, 30*time.Second, "the topic on every broker and the broker's own num.io.threads", func() (bool, string) {
		st, err := readExperimentState(cl, ids, topic)
		s := st[fmt.Sprintf("broker %d %s", own, ioThreads)]
		return err == nil && s.value == "6", fmt.Sprint(st, err)
	})
	return cl, adm, ids
}

// experiment starts (or reuses) the cluster, sets up a topic named after
// the test and returns a client, the broker ids, the topic and the state to
// restore.
func experiment(t *testing.T, name string) (c *kafkatest.Cluster, cl *kgo.Client, ids []int32, topic string, before map[string]configState) {
	t.Helper()
	c = cluster(t, 1)
	ensureRunning(t, c)
	exclusiveBrokerConfigs(t)
	topic = fmt.Sprintf("experiment-%s-%d", name, time.Now().UnixNano())
	cl, _, ids = experimentSetup(t, c, topic)
	return c, cl, ids, topic, experimentState(t, cl, ids, topic)
}

// parseExperiment parses a bench file (topic in place of %s) for c.
func parseExperiment(t *testing.T, c *kafkatest.Cluster, file, topic string) *spec.Bench {
	t.Helper()
	b, err := spec.Parse([]byte(fmt.Sprintf(file, topic)))
	if err != nil {
		t.Fatal(err)
	}
	b.Kafka.Kafka.Brokers = c.Bootstrap()
	return b
}

// checkRestored fails t unless the configuration is as before.
func checkRestored(t *testing.T, cl *kgo.Client, ids []int32, topic string, before map[string]configState, when string) {
	t.Helper()
	if after := experimentState(t, cl, ids, topic); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("configuration not as before %s:\nbefore %v\nafter  %v", when, before, after)
	}
}

// describingWriter receives the bench's progress lines; at each "scenario
// ... of ..." line, written while the scenario runs, it reads the
// configurations and records them under the scenario's name.
type describingWriter struct {
	mu       sync.Mutex
	describe func() map[string]configState
	gatherer prometheus.Gatherer
	seen     map[string][]map[string]configState
	labels   map[string]map[string]bool // probe labels on the metrics, by scenario
}

var progressRE = regexp.MustCompile(`(?m)^scenario \d+ of \d+ \((.*), round \d+ of \d+\): `)

func (w *describingWriter) Write(p []byte) (int, error) {
	for _, m := range progressRE.FindAllSubmatch(p, -1) {
		name := string(m[1])
		st := w.describe()
		labels := probeLabels(w.gatherer)
		w.mu.Lock()
		w.seen[name] = append(w.seen[name], st)
		if w.labels[name] == nil {
			w.labels[name] = map[string]bool{}
		}
		for l := range labels {
			w.labels[name][l] = true
		}
		w.mu.Unlock()
	}
	return len(p), nil
}

// TestConfigExperimentAppliesAndRestores varies num.io.threads on every
// broker and the topic's compression.type over 2 rounds: during each
// scenario every broker shows its values; afterwards every original is
// back, including broker 2's own value. The live metrics carry the scenario
// name as the probe label.
func TestConfigExperimentAppliesAndRestores(t *testing.T) {
	parallel(t) // waits more than it computes; see waiting in main_test.go
	c, cl, ids, topic, before := experiment(t, "rounds")
	b := parseExperiment(t, c, `
num_records: 500
rate: 1000
rounds: 2
defaults:
  topic: %s
  record_size: 1024
  create_topic: {enabled: false}
  producer: {acks: all}
  consumer: {enabled: false}
matrix:
  broker.num.io.threads: [1, 8]
  topic.compression.type: [lz4, zstd]
`, topic)
	reg := prometheus.NewRegistry()
	w := &describingWriter{describe: func() map[string]configState { return experimentState(t, cl, ids, topic) }, gatherer: reg,
		seen: map[string][]map[string]configState{}, labels: map[string]map[string]bool{}}
	r := &run.Runner{Sinks: []event.Sink{promsink.NewMetrics(reg)}, Logger: probetest.Logger(),
		Progress: w, ProgressInterval: 100 * time.Millisecond, Seed: 1}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	start := time.Now()
	results, err := r.Run(ctx, b)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	t.Logf("8 runs in %.1fs", time.Since(start).Seconds())
	if len(results) != 8 {
		t.Fatalf("%d results, want 4 scenarios × 2 rounds", len(results))
	}
	for _, res := range results {
		if res.Failed() {
			t.Errorf("%s round %d failed: %s", res.Name(), res.Round, res.Err)
		}
	}

	for _, s := range b.Scenarios {
		views := w.seen[s.Name]
		if len(views) == 0 {
			t.Errorf("scenario %s: no configuration read while it ran", s.Name)
		}
		want := map[string]string{}
		for _, set := range s.Configs {
			want[set.Name] = set.Value
		}
		for _, view := range views {
			for key, st := range view {
				name := key[strings.LastIndex(key, " ")+1:]
				if st.value != want[name] {
					t.Errorf("scenario %s: %s = %s (%s) while it ran, want %s", s.Name, key, st.value, st.source, want[name])
				}
			}
		}
	}
	checkRestored(t, cl, ids, topic, before, "after the sweep")

	// The live metrics of a scenario carry its name, made a label.
	for _, s := range b.Scenarios {
		if got := w.labels[s.Name]; !got[s.Probe.Name] || s.Probe.Name != strings.NewReplacer(".", "_", "=", "_", ",", "_").Replace(s.Name) {
			t.Errorf("scenario %s: probe labels %v while it ran, want %s", s.Name, got, s.Probe.Name)
		}
	}
}

// probeLabels are the probe labels of kafka_bench_produced_records_total.
func probeLabels(g prometheus.Gatherer) map[string]bool {
	out := map[string]bool{}
	mfs, _ := g.Gather()
	for _, mf := range mfs {
		if mf.GetName() != "kafka_bench_produced_records_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "probe" {
					out[l.GetValue()] = true
				}
			}
		}
	}
	return out
}

// TestConfigExperimentRefusesStaticKey: a static broker configuration is
// refused, naming it, before the first scenario changes anything.
func TestConfigExperimentRefusesStaticKey(t *testing.T) {
	parallel(t) // waits more than it computes; see waiting in main_test.go
	c, cl, ids, topic, before := experiment(t, "static")
	b := parseExperiment(t, c, `
num_records: 100
defaults: {topic: %s, create_topic: {enabled: false}, consumer: {enabled: false}}
scenarios:
  - {name: io1, broker.num.io.threads: 1, topic.compression.type: lz4}
  - {name: dirs, broker.log.dirs: /tmp/elsewhere}
`, topic)
	reg := prometheus.NewRegistry()
	r := &run.Runner{Sinks: []event.Sink{promsink.NewMetrics(reg)}, Logger: probetest.Logger()}
	results, err := r.Run(context.Background(), b)
	const want = `scenario "dirs": broker.log.dirs = "/tmp/elsewhere": static (read-only) broker configuration: it changes only in server.properties and with a restart; add a restart block to the bench file to change it with a rolling restart`
	var refused *brokercfg.RefusedError
	if !errors.As(err, &refused) || err.Error() != want {
		t.Fatalf("Run: %v\nwant the refusal: %s", err, want)
	}
	if len(results) != 0 {
		t.Errorf("%d scenarios ran before the refusal", len(results))
	}
	checkRestored(t, cl, ids, topic, before, "after the refusal")
}

// TestConfigExperimentSIGINT interrupts the real binary mid-scenario: it
// exits after restoring every original configuration.
func TestConfigExperimentSIGINT(t *testing.T) {
	parallel(t) // waits more than it computes; see waiting in main_test.go
	c, cl, ids, topic, before := experiment(t, "sigint")

	dir := t.TempDir()
	bin := testbin.Path(t)
	file := filepath.Join(dir, "bench.yml")
	if err := os.WriteFile(file, []byte(fmt.Sprintf(`
duration: 10m
rate: 200
rounds: 2
defaults: {topic: %s, create_topic: {enabled: false}, consumer: {enabled: false}}
matrix:
  broker.num.io.threads: [2, 12]
  topic.compression.type: [zstd]
`, topic)), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd := exec.Command(bin, "bench", "--bench.file="+file, "--kafka.brokers="+strings.Join(c.Bootstrap(), ","), "--seed=5")
	sw := &syncWriter{w: &out}
	cmd.Stdout, cmd.Stderr = sw, sw
	if err := testenv.StartTied(cmd); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("bench output:\n%s", sw.String())
		}
	})

	// Mid-scenario: every broker shows the first scenario's values (6 → 2
	// passes through 3, so 3 would be mid-way).
	probetest.Eventually(t, 2*time.Minute, "the first scenario's configuration on every broker", func() (bool, string) {
		st := experimentState(t, cl, ids, topic)
		for key, s := range st {
			if strings.HasSuffix(key, ioThreads) && s.value != "2" && s.value != "12" || strings.HasSuffix(key, compression) && s.value != "zstd" {
				return false, fmt.Sprint(st)
			}
		}
		return true, ""
	})
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	var err error
	select {
	case err = <-exited:
	case <-time.After(2 * time.Minute):
		t.Fatal("the bench did not exit within 2 minutes of SIGINT")
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Errorf("exit: %v, want exit code 1 (interrupted)", err)
	}
	if o := sw.String(); !strings.Contains(o, "seed=5") || !strings.Contains(o, "stopped after 1 of 4 runs") {
		t.Errorf("output lacks the seed or the interruption:\n%s", o)
	}
	checkRestored(t, cl, ids, topic, before, "after SIGINT")
}

// syncWriter serialises the writes of stdout and stderr into one buffer.
type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.String()
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// TestConfigExperimentDryRun: the plan shows each change with the value it
// replaces and how it is put back, and changes nothing.
func TestConfigExperimentDryRun(t *testing.T) {
	parallel(t) // waits more than it computes; see waiting in main_test.go
	c, cl, ids, topic, before := experiment(t, "plan")
	b := parseExperiment(t, c, `
num_records: 100
rounds: 3
defaults: {topic: %s, create_topic: {enabled: false}, topic.compression.type: zstd}
matrix:
  broker.num.io.threads: [1, 8]
`, topic)
	var out bytes.Buffer
	if err := (&run.Runner{Seed: 9}).Plan(context.Background(), b, &out); err != nil {
		t.Fatal(err)
	}
	wants := []string{
		"plan: 2 scenarios × 3 rounds = 6 runs, order shuffled with --seed=9\n",
		fmt.Sprintf("  broker %d: set num.io.threads = 1 (now 6, from DYNAMIC_BROKER_CONFIG, via 3); restored by setting 6 again\n", ids[len(ids)-1]),
		fmt.Sprintf("  topic %s: set compression.type = zstd; restored afterwards\n", topic),
	}
	if len(ids) > 1 {
		wants = append(wants, fmt.Sprintf("  broker %d: set num.io.threads = 1 (now 8, from DEFAULT_CONFIG, via 4, 2); restored by deleting the broker's own value\n", ids[0]))
	}
	for _, want := range wants {
		if !strings.Contains(out.String(), want) {
			t.Errorf("plan lacks %q:\n%s", want, out.String())
		}
	}
	checkRestored(t, cl, ids, topic, before, "after the dry run")
}
