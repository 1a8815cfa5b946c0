package configwatch

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testlog"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testwait"
)

// logBuffer collects log output for assertions (and echoes it under -v).
type logBuffer struct{ testlog.Logs }

// lines returns the log lines containing every one of subs.
func (b *logBuffer) lines(subs ...string) []string {
	var out []string
	for l := range strings.SplitSeq(b.String(), "\n") {
		ok := l != ""
		for _, s := range subs {
			ok = ok && strings.Contains(l, s)
		}
		if ok {
			out = append(out, l)
		}
	}
	return out
}

func (b *logBuffer) polls() int { return len(b.lines(`msg="configuration polled"`)) }

type fixture struct {
	cluster *kfake.Cluster
	reg     *prometheus.Registry
	logs    *logBuffer
	w       *Watcher
	target  Target
}

const (
	testTopic = "kafka-bench-p1"
	// kfakeSegmentBytes is kfake's log.segment.bytes (Kafka's is 1 GiB).
	kfakeSegmentBytes = 104857600
)

func start(t *testing.T, opts ...kfake.Opt) *fixture {
	t.Helper()
	c, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(3), kfake.SeedTopics(1, testTopic)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	logs := &logBuffer{}
	var out io.Writer = logs
	if testing.Verbose() {
		out = io.MultiWriter(logs, os.Stderr)
	}
	f := &fixture{
		cluster: c,
		reg:     prometheus.NewRegistry(),
		logs:    logs,
		target: Target{
			Kafka:    config.Cluster{Kafka: config.Kafka{Brokers: c.ListenAddrs(), ClientID: "configwatch-test"}},
			Topics:   []ProbeTopic{{Probe: "p1", Topic: testTopic}},
			Interval: 50 * time.Millisecond,
		},
	}
	f.w = New(f.reg, slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: slog.LevelDebug})), Options{})
	t.Cleanup(f.w.Stop)
	return f
}

func (f *fixture) gather(t *testing.T) scrape.Families {
	t.Helper()
	mfs, err := f.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := scrape.Families{}
	for _, mf := range mfs {
		out[mf.GetName()] = mf
	}
	return out
}

// exposition is the text format of the registry, as /metrics shows it.
func (f *fixture) exposition(t *testing.T) string {
	t.Helper()
	mfs, err := f.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for _, mf := range mfs {
		if _, err := expfmt.MetricFamilyToText(&b, mf); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

// waitPolls waits until n more polls than now have been observed.
func (f *fixture) waitPolls(t *testing.T, n int) {
	t.Helper()
	want := f.logs.polls() + n
	testwait.Until(t, 30*time.Second, 20*time.Millisecond, "configuration polls", func() (bool, string) {
		got := f.logs.polls()
		return got >= want, fmt.Sprintf("%d polls, want %d", got, want)
	})
}

func admin(t *testing.T, c *kfake.Cluster) *kadm.Client {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return kadm.NewClient(cl)
}

func TestWatcherOnEmbeddedCluster(t *testing.T) {
	f := start(t)
	f.w.Apply(context.Background(), f.target)
	brokers := []string{"0", "1", "2"}

	var before scrape.Families
	testwait.Until(t, 30*time.Second, 20*time.Millisecond, "the first poll's series", func() (bool, string) {
		before = f.gather(t)
		_, topicOK := before.Value("kafka_bench_topic_config_info", "probe", "p1", "topic", testTopic)
		ok := topicOK && len(before.Find("kafka_bench_broker_config_info")) == 3
		success, _ := before.Value("kafka_bench_config_poll_success")
		return ok && success == 1, fmt.Sprintf("topic info %v, brokers %d, success %v", topicOK, len(before.Find("kafka_bench_broker_config_info")), success)
	})
	if v, _ := before.Value("kafka_bench_cluster_brokers"); v != 3 {
		t.Errorf("kafka_bench_cluster_brokers = %v, want 3", v)
	}
	if id := before.Label("kafka_bench_cluster_info", "cluster_id"); id == "" {
		t.Error("kafka_bench_cluster_info has no cluster_id")
	}
	if v := before.Label("kafka_bench_cluster_info", "version"); !strings.HasPrefix(v, "v4.") {
		t.Errorf("kafka_bench_cluster_info version = %q, want v4.x (kfake speaks Kafka 4)", v)
	}
	// kfake has no DescribeQuorum: Metadata's controller is its controller.
	if c := before.Label("kafka_bench_cluster_info", "controller"); !slices.Contains(brokers, c) {
		t.Errorf("kafka_bench_cluster_info controller = %q, want one of the brokers %v", c, brokers)
	}
	if r := before.Label("kafka_bench_broker_info", "rack", "broker", "1"); r != "krack" {
		t.Errorf("kafka_bench_broker_info{broker=1} rack = %q, want krack", r)
	}
	for _, b := range brokers {
		if v, ok := before.Value("kafka_bench_broker_config_changes_total", "broker", b); !ok || v != 0 {
			t.Errorf("broker %s: changes_total = %v (present %v), want 0 from the first poll", b, v, ok)
		}
		if v, _ := before.Value("kafka_bench_broker_config_value", "broker", b, "name", "log.segment.bytes"); v != kfakeSegmentBytes {
			t.Errorf("broker %s: broker_config_value{log.segment.bytes} = %v, want kfake's default %v", b, v, kfakeSegmentBytes)
		}
	}
	f.waitPolls(t, 2)
	if got := f.logs.lines("configuration changed"); len(got) != 0 {
		t.Fatalf("changes logged while nothing changed:\n%s", strings.Join(got, "\n"))
	}

	adm := admin(t, f.cluster)
	ctx := context.Background()
	// kfake keeps broker settings cluster-wide: every broker changes.
	if _, err := adm.AlterBrokerConfigs(ctx, []kadm.AlterConfig{{Op: kadm.SetConfig, Name: "log.segment.bytes", Value: new("2097152")}}, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Op: kadm.SetConfig, Name: "retention.ms", Value: new("3600000")}}, testTopic); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, 30*time.Second, 20*time.Millisecond, "the changes to be seen", func() (bool, string) {
		f := f.gather(t)
		n := 0.0
		for _, b := range brokers {
			v, _ := f.Value("kafka_bench_broker_config_changes_total", "broker", b)
			n += v
		}
		tv, _ := f.Value("kafka_bench_topic_config_changes_total", "topic", testTopic)
		return n == 3 && tv == 1, fmt.Sprintf("broker changes %v, topic changes %v", n, tv)
	})
	// Later polls find nothing new: every counter rose by exactly 1.
	f.waitPolls(t, 3)
	after := f.gather(t)
	for _, b := range brokers {
		if v, _ := after.Value("kafka_bench_broker_config_changes_total", "broker", b); v != 1 {
			t.Errorf("broker %s: changes_total = %v, want 1", b, v)
		}
		oldHash := before.Label("kafka_bench_broker_config_info", "hash", "broker", b)
		newHash := after.Label("kafka_bench_broker_config_info", "hash", "broker", b)
		if oldHash == newHash || len(after.Find("kafka_bench_broker_config_info", "broker", b)) != 1 {
			t.Errorf("broker %s: hash %s -> %s (%d series), want one series with a new hash", b, oldHash, newHash, len(after.Find("kafka_bench_broker_config_info", "broker", b)))
		}
		if v, _ := after.Value("kafka_bench_broker_config_last_change_timestamp_seconds", "broker", b); v <= 0 {
			t.Errorf("broker %s: last_change_timestamp = %v", b, v)
		}
		if v, _ := after.Value("kafka_bench_broker_config_value", "broker", b, "name", "log.segment.bytes"); v != 2097152 {
			t.Errorf("broker %s: broker_config_value{log.segment.bytes} = %v, want 2097152", b, v)
		}
		if got := f.logs.lines("configuration changed", "broker="+b+" ", "key=log.segment.bytes", "old=104857600", "new=2097152"); len(got) != 1 {
			t.Errorf("broker %s: %d log lines naming log.segment.bytes 104857600 -> 2097152, want 1:\n%s", b, len(got), f.logs.String())
		}
	}
	if before.Label("kafka_bench_topic_config_info", "hash") == after.Label("kafka_bench_topic_config_info", "hash") {
		t.Error("topic hash unchanged")
	}
	if got := f.logs.lines("configuration changed", "probe=p1", "topic="+testTopic, "key=retention.ms", "old=604800000", "new=3600000"); len(got) != 1 {
		t.Errorf("%d log lines naming retention.ms 604800000 -> 3600000, want 1:\n%s", len(got), f.logs.String())
	}

	changes := f.w.ring.List()
	seen := map[string]Change{}
	for _, c := range changes {
		seen[string(c.Resource)+"/"+c.Broker+c.Topic+"/"+c.Key] = c
	}
	for _, b := range brokers {
		c, ok := seen["broker/"+b+"/log.segment.bytes"]
		if !ok || c.Old != "104857600" || c.New != "2097152" || c.NewSource != "DYNAMIC_BROKER_CONFIG" || c.Time.IsZero() {
			t.Errorf("/changes entry for broker %s = %+v (found %v)", b, c, ok)
		}
	}
	if c, ok := seen["topic/"+testTopic+"/retention.ms"]; !ok || c.Probe != "p1" || c.New != "3600000" || c.NewSource != "DYNAMIC_TOPIC_CONFIG" {
		t.Errorf("/changes entry for the topic = %+v (found %v)", c, ok)
	}
	if len(changes) != 4 {
		t.Errorf("/changes lists %d changes, want 4: %+v", len(changes), changes)
	}

	// Removing the probe removes its topic's series; polling off removes all.
	f.w.Apply(ctx, Target{Kafka: f.target.Kafka, Interval: f.target.Interval})
	if n := len(f.gather(t).Find("kafka_bench_topic_config_info")); n != 0 {
		t.Errorf("%d topic series after the probe was removed", n)
	}
	f.w.Apply(ctx, Target{Kafka: f.target.Kafka})
	f.w.Stop()
	if s := f.exposition(t); s != "" {
		t.Errorf("series left with polling off:\n%s", s)
	}
}

// denyDescribeConfigs answers DescribeConfigs with authorization errors
// while deny is set, as a managed cluster or ACLs do.
func denyDescribeConfigs(c *kfake.Cluster, deny *atomic.Bool) {
	c.ControlKey(int16(kmsg.DescribeConfigs), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if !deny.Load() {
			return nil, nil, false
		}
		req := kreq.(*kmsg.DescribeConfigsRequest)
		resp := req.ResponseKind().(*kmsg.DescribeConfigsResponse)
		for _, r := range req.Resources {
			rr := kmsg.NewDescribeConfigsResponseResource()
			rr.ResourceType, rr.ResourceName = r.ResourceType, r.ResourceName
			rr.ErrorCode = kerr.ClusterAuthorizationFailed.Code
			if r.ResourceType == kmsg.ConfigResourceTypeTopic {
				rr.ErrorCode = kerr.TopicAuthorizationFailed.Code
			}
			resp.Resources = append(resp.Resources, rr)
		}
		return resp, nil, true
	})
}

func TestDeniedDescribeConfigsWarnsOnce(t *testing.T) {
	f := start(t)
	var deny atomic.Bool
	deny.Store(true)
	denyDescribeConfigs(f.cluster, &deny)
	f.w.Apply(context.Background(), f.target)
	f.waitPolls(t, 5)

	m := f.gather(t)
	if v, ok := m.Value("kafka_bench_config_poll_success"); !ok || v != 0 {
		t.Errorf("kafka_bench_config_poll_success = %v (present %v), want 0", v, ok)
	}
	if v, _ := m.Value("kafka_bench_cluster_brokers"); v != 3 {
		t.Errorf("cluster facts still read: kafka_bench_cluster_brokers = %v, want 3", v)
	}
	if n := len(m.Find("kafka_bench_broker_config_info")); n != 0 {
		t.Errorf("%d broker config series without a describe", n)
	}
	if got := f.logs.lines("level=WARN"); len(got) != 1 || !strings.Contains(got[0], "denied") {
		t.Errorf("want exactly one WARN about the denial, got:\n%s", strings.Join(got, "\n"))
	}

	deny.Store(false)
	testwait.Until(t, 30*time.Second, 20*time.Millisecond, "polls to succeed once allowed", func() (bool, string) {
		v, _ := f.gather(t).Value("kafka_bench_config_poll_success")
		return v == 1, fmt.Sprint("success ", v)
	})
	if got := f.logs.lines("level=INFO", "succeeded again"); len(got) != 1 {
		t.Errorf("want one INFO line on recovery, got %d:\n%s", len(got), f.logs.String())
	}
	if got := f.logs.lines("level=WARN"); len(got) != 1 {
		t.Errorf("more WARN lines after recovery:\n%s", strings.Join(got, "\n"))
	}
}

// Apply returns while a poll hangs, and the hung poll's results are dropped.
func TestApplyDoesNotWaitForAPoll(t *testing.T) {
	f := start(t)
	entered := make(chan struct{}, 1)
	release := make(chan struct{})
	f.cluster.ControlKey(int16(kmsg.DescribeConfigs), func(kmsg.Request) (kmsg.Response, error, bool) {
		f.cluster.KeepControl()
		select {
		case entered <- struct{}{}:
		default:
		}
		f.cluster.SleepControl(func() { <-release })
		return nil, nil, false
	})
	defer close(release)
	f.w.Apply(context.Background(), f.target)
	<-entered

	applied := make(chan struct{})
	go func() {
		defer close(applied)
		f.w.Apply(context.Background(), Target{Kafka: f.target.Kafka}) // off
	}()
	select {
	case <-applied:
	case <-time.After(20 * time.Second):
		t.Fatal("Apply waited for the hung poll")
	}
	f.w.Stop()
	if s := f.exposition(t); s != "" {
		t.Errorf("series after polling was turned off during a poll:\n%s", s)
	}
}

// sensitiveBroker answers broker DescribeConfigs as a broker that (wrongly)
// sends the value of a sensitive key, a different one each time, and sets
// and unsets a second sensitive key every other poll of that broker.
func sensitiveBroker(c *kfake.Cluster, flagged bool) {
	var mu sync.Mutex
	polls := map[string]int{}
	c.ControlKey(int16(kmsg.DescribeConfigs), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		req := kreq.(*kmsg.DescribeConfigsRequest)
		if len(req.Resources) == 0 || req.Resources[0].ResourceType != kmsg.ConfigResourceTypeBroker {
			return nil, nil, false
		}
		resp := req.ResponseKind().(*kmsg.DescribeConfigsResponse)
		for _, r := range req.Resources {
			mu.Lock()
			polls[r.ResourceName]++
			n := polls[r.ResourceName]
			mu.Unlock()
			rr := kmsg.NewDescribeConfigsResponseResource()
			rr.ResourceType, rr.ResourceName = r.ResourceType, r.ResourceName
			add := func(name, value string, src kmsg.ConfigSource, sensitive bool) {
				rc := kmsg.NewDescribeConfigsResponseResourceConfig()
				rc.Name, rc.Value, rc.Source, rc.IsSensitive = name, new(value), src, sensitive
				rr.Configs = append(rr.Configs, rc)
			}
			add("ssl.keystore.password", "s3cret-keystore-"+strconv.Itoa(n), kmsg.ConfigSourceDynamicBrokerConfig, flagged)
			if (n/2)%2 == 1 {
				add("sasl.jaas.config", "s3cret-jaas-"+strconv.Itoa(n), kmsg.ConfigSourceDynamicBrokerConfig, flagged)
			}
			add("num.io.threads", "8", kmsg.ConfigSourceDefaultConfig, false)
			resp.Resources = append(resp.Resources, rr)
		}
		return resp, nil, true
	})
}

// A broker that sends the values of secret keys: flagged sensitive, or not
// (a broker other than Apache Kafka's may not set the flag), the values show
// nowhere, since a key named like a secret (redact.SensitiveKey) is
// sensitive whatever the flag says.
func TestSensitiveValuesNeverExposed(t *testing.T) {
	for _, flagged := range []bool{true, false} {
		t.Run(fmt.Sprintf("flagged=%v", flagged), func(t *testing.T) { sensitiveValuesNeverExposed(t, flagged) })
	}
}

func sensitiveValuesNeverExposed(t *testing.T, flagged bool) {
	f := start(t)
	sensitiveBroker(f.cluster, flagged)
	f.w.Apply(context.Background(), f.target)
	testwait.Until(t, 30*time.Second, 20*time.Millisecond, "a sensitive key to be set and unset on every broker", func() (bool, string) {
		n := map[string]int{}
		for _, c := range f.w.ring.List() {
			n[c.Broker]++
		}
		return n["0"] >= 2 && n["1"] >= 2 && n["2"] >= 2, fmt.Sprintf("changes by broker: %v", n)
	})
	f.w.Stop()

	srv := httptest.NewServer(f.w.Changes())
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()

	for where, text := range map[string]string{"log": f.logs.String(), "/metrics": f.exposition(t), "/changes": string(body)} {
		if strings.Contains(text, "s3cret") {
			t.Errorf("a sensitive value appears in %s:\n%s", where, text)
		}
	}
	for _, c := range f.w.ring.List() {
		if c.Key != "sasl.jaas.config" || !c.Sensitive || c.Old != "" || c.New != "" {
			t.Errorf("unexpected change %+v: only sasl.jaas.config, without values", c)
		}
	}
	for _, l := range f.logs.lines("configuration changed") {
		if !strings.Contains(l, "sensitive=true") || strings.Contains(l, "old=") || strings.Contains(l, "new=") {
			t.Errorf("log line of a sensitive change: %s", l)
		}
	}
	// The value kept changing, yet only the key's presence counted.
	m := f.gather(t)
	for _, b := range []string{"0", "1", "2"} {
		v, _ := m.Value("kafka_bench_broker_config_changes_total", "broker", b)
		if v < 2 {
			t.Errorf("broker %s: %v changes, want one per set or unset of sasl.jaas.config", b, v)
		}
	}
}

// Cluster facts: a broker leaving is a change; a KRaft poll without the
// quorum's answer (Metadata names a random broker) and one where no broker
// answered ApiVersions keep the last controller and version.
func TestClusterFacts(t *testing.T) {
	reg := prometheus.NewRegistry()
	w := New(reg, slog.New(slog.DiscardHandler), Options{})
	f := &fixture{reg: reg}
	now := time.Unix(1700000000, 0)
	w.observe(w.gen, now, time.Millisecond, snapshot{facts: &facts{
		clusterID: "c1", controller: 1, fromQuorum: true, kraft: true, quorumAPI: true, version: "v4.1",
		brokers: []int32{1, 2, 3}, racks: map[int32]string{1: "a", 2: "b", 3: "c"},
	}})
	w.observe(w.gen, now.Add(time.Minute), time.Millisecond, snapshot{facts: &facts{
		clusterID: "c1", controller: 3, kraft: true, quorumAPI: true,
		brokers: []int32{1, 2}, racks: map[int32]string{1: "a", 2: "b"},
	}})
	changes := w.ring.List()
	if len(changes) != 1 || changes[0].Resource != KindCluster || changes[0].Key != "brokers" || changes[0].Old != "1,2,3" || changes[0].New != "1,2" {
		t.Errorf("changes = %+v, want only brokers 1,2,3 -> 1,2", changes)
	}
	m := f.gather(t)
	if c, v := m.Label("kafka_bench_cluster_info", "controller"), m.Label("kafka_bench_cluster_info", "version"); c != "1" || v != "v4.1" {
		t.Errorf("cluster_info controller=%q version=%q, want the last known 1 and v4.1", c, v)
	}
	if n := len(m.Find("kafka_bench_cluster_info")); n != 1 {
		t.Errorf("%d cluster_info series, want 1", n)
	}
	if v, _ := m.Value("kafka_bench_cluster_brokers"); v != 2 {
		t.Errorf("cluster_brokers = %v, want 2", v)
	}
	if n, r := len(m.Find("kafka_bench_broker_info")), m.Label("kafka_bench_broker_info", "rack", "broker", "2"); n != 2 || r != "b" {
		t.Errorf("broker_info: %d series, broker 2 rack %q; want 2 series, rack b", n, r)
	}

	// A stale generation's results are dropped.
	w.observe(w.gen-1, now.Add(2*time.Minute), time.Millisecond, snapshot{facts: &facts{clusterID: "other"}})
	if id := f.gather(t).Label("kafka_bench_cluster_info", "cluster_id"); id != "c1" {
		t.Errorf("a stale poll changed cluster_id to %q", id)
	}
}

// A probe topic that stays missing is polled again after 1 s, 2 s, 4 s, ...
// up to the interval, not every second for ever.
func TestMissingTopicBacksOff(t *testing.T) {
	var got []time.Duration
	for n := range 9 {
		got = append(got, nextWait(time.Minute, n))
	}
	want := []time.Duration{time.Minute, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second,
		16 * time.Second, 32 * time.Second, time.Minute, time.Minute}
	if !slices.Equal(got, want) {
		t.Errorf("waits after 0..8 missing polls = %v, want %v", got, want)
	}
	if w := nextWait(500*time.Millisecond, 1); w != 500*time.Millisecond {
		t.Errorf("an interval below the retry delay: wait %v, want the interval", w)
	}
}

// A probe topic whose DescribeConfigs fails (TOPIC_AUTHORIZATION_FAILED, or
// any other error of the topic, such as UNKNOWN_SERVER_ERROR) is a failure,
// logged and counted, not a missing topic: it does not make the watcher
// poll again after a second.
func TestFailedTopicIsNotMissing(t *testing.T) {
	f := start(t)
	var code atomic.Int32
	f.cluster.ControlKey(int16(kmsg.DescribeConfigs), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		f.cluster.KeepControl()
		req := kreq.(*kmsg.DescribeConfigsRequest)
		if len(req.Resources) == 0 || req.Resources[0].ResourceType != kmsg.ConfigResourceTypeTopic {
			return nil, nil, false
		}
		resp := req.ResponseKind().(*kmsg.DescribeConfigsResponse)
		for _, r := range req.Resources {
			rr := kmsg.NewDescribeConfigsResponseResource()
			rr.ResourceType, rr.ResourceName, rr.ErrorCode = r.ResourceType, r.ResourceName, int16(code.Load())
			resp.Resources = append(resp.Resources, rr)
		}
		return resp, nil, true
	})
	cl, err := kgo.NewClient(kgo.SeedBrokers(f.cluster.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for _, e := range []*kerr.Error{kerr.TopicAuthorizationFailed, kerr.UnknownServerError} {
		code.Store(int32(e.Code))
		s := poll(context.Background(), cl, []string{testTopic}, releasesByMetadataVersion())
		if s.missingTopics {
			t.Errorf("%s: the topic counts as missing: the watcher would poll every second", e.Message)
		}
		if s.err == nil || s.failed[KindTopic] != 1 {
			t.Errorf("%s: err %v, failed %v; want an error and 1 topic failure", e.Message, s.err, s.failed)
		}
	}

	f.target.Interval = time.Hour
	f.w.Apply(context.Background(), f.target)
	f.waitPolls(t, 1)
	testwait.Until(t, 30*time.Second, 20*time.Millisecond, "the failed topic counted", func() (bool, string) {
		v, _ := f.gather(t).Value("kafka_bench_config_describe_failed_total", "resource", "topic")
		return v == 1, fmt.Sprint("failed ", v)
	})
}
