package integration

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-bench/kafka_bench_exporter/bench/run"
	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/internal/kafkatest"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testbin"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testenv"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

// staticKey is a static broker configuration: Kafka changes it only in
// server.properties, at a restart.
const staticKey = "replica.fetch.wait.max.ms"

// restartClusters is the 3-node cluster the restart tests restart nodes
// of, one test at a time.
var restartClusters struct {
	mu sync.Mutex
	c  *kafkatest.Cluster
}

// restartCluster returns the restart tests' cluster, started on first use,
// and holds it until t ends.
func restartCluster(t *testing.T) *kafkatest.Cluster {
	t.Helper()
	kafkatest.Integration(t)
	restartClusters.mu.Lock()
	t.Cleanup(restartClusters.mu.Unlock)
	if restartClusters.c == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		c, err := kafkatest.StartCluster(ctx, kafkatest.Options{Nodes: 3}, t.Logf)
		if err != nil {
			t.Fatalf("starting a 3-node Kafka cluster: %v", err)
		}
		restartClusters.c = c
		clusters.mu.Lock()
		clusters.extra = append(clusters.extra, c)
		clusters.mu.Unlock()
	}
	ensureRunning(t, restartClusters.c)
	return restartClusters.c
}

// restartHook serves the test's restart hook: POST /restart?broker=ID with
// the bench's settings file as the body and the keys to remove in the
// X-Unset header rewrites the node's server.properties and restarts it.
// The brokers in fail answer 500 instead, changing nothing.
type restartHook struct {
	c    *kafkatest.Cluster
	fail map[int32]bool
	mu   sync.Mutex
	log  []string // "<broker> <settings>", in order
}

func (h *restartHook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.Atoi(r.URL.Query().Get("broker"))
	if err != nil {
		http.Error(w, "bad broker: "+err.Error(), http.StatusBadRequest)
		return
	}
	if h.fail[int32(id)] {
		http.Error(w, fmt.Sprintf("node %d unreachable", id), http.StatusInternalServerError)
		return
	}
	set := map[string]string{}
	sc := bufio.NewScanner(r.Body)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			set[k] = v
		}
	}
	unset := strings.Fields(r.Header.Get("X-Unset"))
	h.mu.Lock()
	h.log = append(h.log, fmt.Sprintf("%d %v unset %v", id, set, unset))
	h.mu.Unlock()
	i := h.c.IndexOfNode(int32(id))
	if err := h.c.SetProperties(i, set, unset); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if err := h.c.Restart(i); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	_, _ = fmt.Fprintln(w, "restarted")
}

// serveHook serves h on a loopback port until t ends and returns the
// restart block's command.
func serveHook(t *testing.T, h *restartHook) string {
	t.Helper()
	if _, err := exec.LookPath("curl"); err != nil {
		t.Fatalf("the restart hook needs curl: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return fmt.Sprintf(`curl -sS --fail-with-body --max-time 240 -H "X-Unset: $KAFKA_BENCH_UNSET" --data-binary @{{.SettingsFile}} "http://%s/restart?broker={{.BrokerID}}"`, ln.Addr())
}

// staticState is staticKey on every broker: value and source.
func staticState(cl *kgo.Client, ids []int32) (map[int32]configState, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out := map[int32]configState{}
	for _, id := range ids {
		req := kmsg.NewPtrDescribeConfigsRequest()
		rr := kmsg.NewDescribeConfigsRequestResource()
		rr.ResourceType, rr.ResourceName, rr.ConfigNames = kmsg.ConfigResourceTypeBroker, strconv.Itoa(int(id)), []string{staticKey}
		req.Resources = append(req.Resources, rr)
		resp, err := req.RequestWith(ctx, cl.Broker(int(id)))
		if err != nil { // once more: a connection from before a restart fails its first request
			resp, err = req.RequestWith(ctx, cl.Broker(int(id)))
		}
		if err != nil {
			return nil, fmt.Errorf("DescribeConfigs on broker %d: %w", id, err)
		}
		if len(resp.Resources) != 1 || len(resp.Resources[0].Configs) != 1 {
			return nil, fmt.Errorf("DescribeConfigs on broker %d: %d resources", id, len(resp.Resources))
		}
		if err := kerr.ErrorForCode(resp.Resources[0].ErrorCode); err != nil {
			return nil, fmt.Errorf("DescribeConfigs on broker %d: %w", id, err)
		}
		c := resp.Resources[0].Configs[0]
		out[id] = configState{deref(c.Value), c.Source.String()}
	}
	return out, nil
}

func deref(s *string) string {
	if s == nil {
		return "null"
	}
	return *s
}

// restartSetup creates an RF 3 topic (min.insync.replicas 2 on this
// cluster) and returns a client, the broker ids and staticKey before.
func restartSetup(t *testing.T, c *kafkatest.Cluster, topic string) (*kgo.Client, []int32, map[int32]configState) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Bootstrap()...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ids, err := c.BrokerIDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 3 {
		t.Fatalf("brokers %v, want 3", ids)
	}
	createTopic(t, ctx, admin(t, c), topic, 3, 3)
	before, err := staticState(cl, ids)
	if err != nil {
		t.Fatal(err)
	}
	for id, st := range before {
		if st.source == "STATIC_BROKER_CONFIG" {
			t.Fatalf("broker %d: %s already set in server.properties (%v): a test left it", id, staticKey, st)
		}
	}
	return cl, ids, before
}

// checkStaticRestored fails t unless every broker shows staticKey as
// before and no server.properties names it.
func checkStaticRestored(t *testing.T, c *kafkatest.Cluster, cl *kgo.Client, ids []int32, before map[int32]configState) {
	t.Helper()
	// The first request on a connection to a broker that restarted since
	// can fail (EOF): the client reconnects for the next.
	var after map[int32]configState
	probetest.Eventually(t, 30*time.Second, "every broker's "+staticKey, func() (bool, string) {
		var err error
		after, err = staticState(cl, ids)
		return err == nil, fmt.Sprint(err)
	})
	if fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("%s not as before the sweep:\nbefore %v\nafter  %v", staticKey, before, after)
	}
	for i := range c.Nodes() {
		data, err := os.ReadFile(c.ConfigPath(i))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), staticKey) {
			t.Errorf("node %d's server.properties still sets %s:\n%s", c.NodeID(i), staticKey, data)
		}
	}
}

// benchProcess runs the real binary's bench on file with args; each progress line
// of a scenario (every 5 s) calls onScenario with its name. It returns the combined
// output and the exit error.
func benchProcess(t *testing.T, c *kafkatest.Cluster, file string, onScenario func(string), args ...string) (string, error) {
	t.Helper()
	bin := testbin.Path(t)
	cmd := exec.Command(bin, append([]string{"bench", "--bench.file=" + file, "--kafka.brokers=" + strings.Join(c.Bootstrap(), ",")}, args...)...)
	pr, pw := io.Pipe()
	out := &syncWriter{w: &bytes.Buffer{}}
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := testenv.StartTied(cmd); err != nil {
		t.Fatal(err)
	}
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			line := sc.Text()
			_, _ = out.Write([]byte(line + "\n"))
			if m := progressRE.FindStringSubmatch(line); m != nil {
				onScenario(m[1])
			}
		}
	}()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(20 * time.Minute):
		_ = cmd.Process.Kill()
		err = <-done
		t.Errorf("the bench did not end within 20 minutes")
	}
	_ = pw.Close()
	<-read
	return out.String(), err
}

// testStaticConfigExperimentRollingRestart (TestRollingRestarts) varies a
// static broker setting
// through the restart hook on three combined KRaft nodes (RF 3,
// min.insync.replicas 2, acks=all) over three rounds: while each scenario
// runs every broker shows its value from server.properties
// (DescribeConfigs), nothing is lost, a verdict is printed, and afterwards
// every broker shows the original again with the key gone from its file.
func testStaticConfigExperimentRollingRestart(t *testing.T) {
	c := restartCluster(t)
	topic := fmt.Sprintf("restart-experiment-%d", time.Now().UnixNano())
	cl, ids, before := restartSetup(t, c, topic)
	hook := &restartHook{c: c}
	dir := t.TempDir()
	file, results := filepath.Join(dir, "bench.yml"), filepath.Join(dir, "results.json")
	// A generous delivery.timeout.ms: the JVMs share two cores with the
	// bench, and a record late by seconds is no loss.
	if err := os.WriteFile(file, []byte(fmt.Sprintf(`
duration: 6s
rate: 500
rounds: 3
defaults:
  topic: %s
  record_size: 512
  create_topic: {enabled: false}
  producer: {acks: all, delivery.timeout.ms: 120000}
matrix:
  broker.%s: [100, 500]
restart:
  command: '%s'
  timeout: 4m
  preferred_leaders: true
`, topic, staticKey, serveHook(t, hook))), 0o600); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[string][]map[int32]configState{}
	// --seed=7 orders the runs 100, 500 | 500, 100 | 100, 500: four
	// rolling restarts and the restore.
	out, err := benchProcess(t, c, file, func(name string) {
		st, err := staticState(cl, ids)
		if err != nil {
			t.Errorf("scenario %s: %v", name, err)
			return
		}
		mu.Lock()
		seen[name] = append(seen[name], st)
		mu.Unlock()
	}, "--seed=7", "--output="+results, "--format=json")
	t.Logf("hook calls:\n%s", strings.Join(hook.log, "\n"))
	if err != nil {
		t.Fatalf("bench: %v\n%s", err, out)
	}
	if n := len(hook.log); n != 5*3 {
		t.Errorf("%d broker restarts, want 15 (4 rolling restarts and the restore)", n)
	}
	for _, v := range []string{"100", "500"} {
		name := "broker." + staticKey + "=" + v
		views := seen[name]
		if len(views) == 0 {
			t.Errorf("scenario %s: no configuration read while it ran", name)
		}
		for _, view := range views {
			for id, st := range view {
				if st.value != v || st.source != "STATIC_BROKER_CONFIG" {
					t.Errorf("scenario %s: broker %d shows %v while it ran, want %s from STATIC_BROKER_CONFIG", name, id, st, v)
				}
			}
		}
	}
	data, err := os.ReadFile(results)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Runs []struct {
			Params  map[string]string `json:"params"`
			Error   string            `json:"error"`
			Consume *struct {
				Records int64 `json:"records"`
				Lost    int64 `json:"lost"`
			} `json:"consume"`
		} `json:"runs"`
		Summary []struct {
			Scenario, Metric, Verdict string
		} `json:"summary"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Runs) != 6 {
		t.Fatalf("%d runs in the results, want 6:\n%s", len(doc.Runs), data)
	}
	for _, r := range doc.Runs {
		if r.Error != "" || r.Consume == nil || r.Consume.Records == 0 || r.Consume.Lost != 0 {
			t.Errorf("run %v: error %q, consumed %+v; want records read and 0 lost", r.Params, r.Error, r.Consume)
		}
	}
	verdicts := 0
	for _, s := range doc.Summary {
		if s.Scenario == "broker."+staticKey+"=500" && slices.Contains([]string{"better", "worse", "no difference"}, s.Verdict) {
			verdicts++
		}
	}
	if verdicts == 0 {
		t.Errorf("no verdict for broker.%s=500 against the baseline in the summary:\n%s", staticKey, data)
	}
	if !regexp.MustCompile(`(?m)^\| broker\.` + regexp.QuoteMeta(staticKey) + `=500 \| produce p99 \(ms\) \|.*\| (better|worse|no difference) \|$`).MatchString(out) {
		t.Errorf("stdout shows no verdict of broker.%s=500 against the baseline:\n%s", staticKey, out)
	}
	checkStaticRestored(t, c, cl, ids, before)
}

// TestStaticConfigExperimentHookFails: the hook fails on the second broker.
// The sweep stops with an error naming that broker and the hook's output,
// and the first broker, already restarted with the scenario's value, is
// restarted with its original again.
func TestStaticConfigExperimentHookFails(t *testing.T) {
	c := restartCluster(t)
	topic := fmt.Sprintf("restart-fails-%d", time.Now().UnixNano())
	cl, ids, before := restartSetup(t, c, topic)
	hook := &restartHook{c: c, fail: map[int32]bool{ids[1]: true}}
	file := filepath.Join(t.TempDir(), "bench.yml")
	if err := os.WriteFile(file, []byte(fmt.Sprintf(`
num_records: 500
rate: 1000
defaults:
  topic: %s
  create_topic: {enabled: false}
  producer: {acks: all}
  broker.%s: 200
restart:
  command: '%s'
  timeout: 4m
`, topic, staticKey, serveHook(t, hook))), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := benchProcess(t, c, file, func(string) {}, "--seed=1")
	t.Logf("hook calls:\n%s", strings.Join(hook.log, "\n"))
	if _, ok := errors.AsType[*exec.ExitError](err); !ok {
		t.Fatalf("bench: %v, want a failure\n%s", err, out)
	}
	for _, want := range []string{
		fmt.Sprintf("restart hook for broker %d", ids[1]),
		fmt.Sprintf("node %d unreachable", ids[1]),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if len(hook.log) != 2 || !strings.HasPrefix(hook.log[0], fmt.Sprint(ids[0])+" ") || !strings.HasPrefix(hook.log[1], fmt.Sprint(ids[0])+" ") {
		t.Errorf("hook restarts %q, want broker %d with the value, then with the original", hook.log, ids[0])
	}
	checkStaticRestored(t, c, cl, ids, before)
}

// TestStaticConfigExperimentDryRun: --dry-run prints the restarts (broker,
// value, current value and source, command) and the restore, and
// restarts nothing.
func TestStaticConfigExperimentDryRun(t *testing.T) {
	c := restartCluster(t)
	topic := fmt.Sprintf("restart-plan-%d", time.Now().UnixNano())
	cl, ids, before := restartSetup(t, c, topic)
	hook := &restartHook{c: c}
	cmd := serveHook(t, hook)
	b, err := spec.Parse([]byte(fmt.Sprintf(`
num_records: 100
rounds: 2
defaults: {topic: %s, create_topic: {enabled: false}}
matrix:
  broker.%s: [100, 500]
restart:
  command: '%s'
  timeout: 3m
`, topic, staticKey, cmd)))
	if err != nil {
		t.Fatal(err)
	}
	b.Kafka.Kafka.Brokers = c.Bootstrap()
	var out bytes.Buffer
	if err := (&run.Runner{Seed: 7}).Plan(context.Background(), b, &out); err != nil {
		t.Fatal(err)
	}
	shown := strings.ReplaceAll(cmd, "{{.SettingsFile}}", "<settings file>")
	wants := []string{"restarts: one broker at a time, each back (registered, no under-replicated partition, controller quorum caught up) before the next, within 3m each\n"}
	for _, id := range ids {
		wants = append(wants,
			fmt.Sprintf("  broker %d: restart (static) with %s = 100 (now %s, from %s); by: %s\n", id, staticKey, before[id].value, before[id].source,
				strings.ReplaceAll(shown, "{{.BrokerID}}", strconv.Itoa(int(id)))),
			fmt.Sprintf("  broker %d: restored by a restart with %s removed (back to %s)\n", id, staticKey, before[id].value))
	}
	for _, want := range wants {
		if !strings.Contains(out.String(), want) {
			t.Errorf("plan lacks %q:\n%s", want, out.String())
		}
	}
	if len(hook.log) != 0 {
		t.Errorf("the dry run restarted brokers: %q", hook.log)
	}
	checkStaticRestored(t, c, cl, ids, before)
}
