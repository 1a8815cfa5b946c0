package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/exporter/configwatch"
	"github.com/kafka-bench/kafka_bench_exporter/internal/exportertest"
	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

// pollLog passes INFO and above, and the DEBUG line each configuration poll
// logs, which the test counts to tell "within one poll" without a clock.
type pollLog struct{ slog.Handler }

const polledMsg = "configuration polled"

func (h pollLog) Enabled(ctx context.Context, l slog.Level) bool { return h.Handler.Enabled(ctx, l) }
func (h pollLog) Handle(ctx context.Context, r slog.Record) error {
	if r.Level < slog.LevelInfo && r.Message != polledMsg {
		return nil
	}
	return h.Handler.Handle(ctx, r)
}
func (h pollLog) WithAttrs(as []slog.Attr) slog.Handler { return pollLog{h.Handler.WithAttrs(as)} }
func (h pollLog) WithGroup(n string) slog.Handler       { return pollLog{h.Handler.WithGroup(n)} }

func hasAll(line string, subs []string) bool {
	for _, s := range subs {
		if !strings.Contains(line, s) {
			return false
		}
	}
	return line != ""
}

// pollOf returns the number of the poll that logged the first line
// containing every one of subs (polls counted from 1), or 0.
func pollOf(logs string, subs ...string) int {
	n := 0
	for l := range strings.SplitSeq(logs, "\n") {
		if strings.Contains(l, `msg="`+polledMsg+`"`) {
			n++
		}
		if hasAll(l, subs) {
			return n
		}
	}
	return 0
}

func countLines(logs string, subs ...string) int {
	n := 0
	for l := range strings.SplitSeq(logs, "\n") {
		if hasAll(l, subs) {
			n++
		}
	}
	return n
}

func countPolls(logs string) int { return strings.Count(logs, `msg="`+polledMsg+`"`) }

// TestConfigWatch alters a dynamic broker setting and the probe topic's
// retention.ms while the exporter runs, and finds each change within one
// poll as a new hash, a counter that rose by exactly 1, a log line naming
// the key old → new, and a /changes entry.
func TestConfigWatch(t *testing.T) {
	parallel(t) // waits more than it computes; see waiting in main_test.go
	c := cluster(t, 1)
	ensureRunning(t, c)
	exclusiveBrokerConfigs(t)
	const probe, topic = "configwatch", "kafka-bench-configwatch"
	broker := c.NodeID(0)
	b := strconv.Itoa(int(broker))

	logs := &probetest.Logs{}
	var w io.Writer = logs
	if testing.Verbose() {
		w = io.MultiWriter(logs, os.Stderr)
	}
	logger := slog.New(pollLog{slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug})})
	x := exportertest.StartLogged(t, `
config_poll_interval: 2s
probes:
  - name: configwatch
    rate: 50
    record_size: 100
    lag_interval: 1s
    create_topic: {partitions: 1, replication_factor: 1}
`, c.Bootstrap(), logger)
	x.WaitReady(t, 60*time.Second)

	var before scrape.Families
	probetest.Eventually(t, 30*time.Second, "the first complete configuration poll", func() (bool, string) {
		before = x.Scrape(t)
		_, bOK := before.Value("kafka_bench_broker_config_info", "broker", b)
		_, tOK := before.Value("kafka_bench_topic_config_info", "probe", probe, "topic", topic)
		ok, _ := before.Value("kafka_bench_config_poll_success")
		return bOK && tOK && ok == 1, fmt.Sprintf("broker info %v, topic info %v, success %v", bOK, tOK, ok)
	})
	if got := before.Label("kafka_bench_cluster_info", "cluster_id"); got != c.ClusterID() {
		t.Errorf("cluster_id = %q, want %q", got, c.ClusterID())
	}
	if got := before.Label("kafka_bench_cluster_info", "controller"); got != b {
		t.Errorf("controller = %q, want %s (the only node)", got, b)
	}
	// franz-go names a release by major.minor: "v4.4" for Kafka 4.4.0.
	if kv := strings.SplitN(c.KafkaVersion(), ".", 3); len(kv) < 2 {
		t.Errorf("kafkatest runs Kafka %q", c.KafkaVersion())
	} else if got, want := before.Label("kafka_bench_cluster_info", "version"), "v"+kv[0]+"."+kv[1]; got != want {
		t.Errorf("version = %q, want %s (the harness runs Kafka %s)", got, want, c.KafkaVersion())
	}
	if v, _ := before.Value("kafka_bench_cluster_brokers"); v != 1 {
		t.Errorf("kafka_bench_cluster_brokers = %v, want 1", v)
	}
	for _, name := range []string{"num.io.threads", "num.network.threads", "num.replica.fetchers", "socket.send.buffer.bytes"} {
		if _, ok := before.Value("kafka_bench_broker_config_value", "broker", b, "name", name); !ok {
			t.Errorf("kafka_bench_broker_config_value{name=%q} missing", name)
		}
	}

	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Bootstrap()...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close) // after the restoring cleanup below
	adm := kadm.NewClient(cl)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	// A sensitive setting the broker accepts dynamically (harmless on a
	// PLAINTEXT listener): it must be reported without its value.
	const sensitiveKey = "listener.name.plaintext.ssl.key.password"
	secret := "s3cret-" + strconv.FormatInt(time.Now().UnixNano(), 36)

	// New values differ from whatever the shared cluster holds now.
	// log.cleaner.threads may change by at most a factor of 2 at a time.
	oldThreads := describeOne(t, ctx, adm, broker, "", "log.cleaner.threads")
	newThreads := map[bool]string{true: "2", false: "1"}[oldThreads == "1"]
	oldRetention := describeOne(t, ctx, adm, -1, topic, "retention.ms")
	newRetention := map[bool]string{true: "3600000", false: "7200000"}[oldRetention != "3600000"]
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		// Leave the shared cluster's broker as it was.
		_, err := adm.AlterBrokerConfigs(ctx, []kadm.AlterConfig{
			{Op: kadm.DeleteConfig, Name: "log.cleaner.threads"},
			{Op: kadm.DeleteConfig, Name: sensitiveKey},
		}, broker)
		if err != nil {
			t.Errorf("restoring the broker configuration: %v", err)
		}
	})

	polls := countPolls(logs.String())
	rs, err := adm.AlterBrokerConfigs(ctx, []kadm.AlterConfig{
		{Op: kadm.SetConfig, Name: "log.cleaner.threads", Value: &newThreads},
		{Op: kadm.SetConfig, Name: sensitiveKey, Value: &secret},
	}, broker)
	if err == nil && len(rs) == 1 {
		err = rs[0].Err
	}
	if err != nil {
		t.Fatalf("altering log.cleaner.threads and %s: %v", sensitiveKey, err)
	}
	alterTopicConfig(t, ctx, adm, topic, kadm.SetConfig, "retention.ms", newRetention)
	// Poll altered+1 may have been in flight while the alter ran and miss
	// it; poll altered+2 starts after the alter returned and must see it.
	altered := countPolls(logs.String())
	t.Logf("altered log.cleaner.threads %s -> %s and retention.ms %s -> %s between polls %d and %d",
		oldThreads, newThreads, oldRetention, newRetention, polls, altered)

	brokerLine := []string{"configuration changed", "resource=broker", "broker=" + b + " ", "key=log.cleaner.threads", "old=" + oldThreads, "new=" + newThreads}
	topicLine := []string{"configuration changed", "resource=topic", "probe=" + probe, "topic=" + topic, "key=retention.ms", "old=" + oldRetention, "new=" + newRetention}
	sensitiveLine := []string{"configuration changed", "resource=broker", "broker=" + b + " ", "key=" + sensitiveKey, "sensitive=true"}
	probetest.Eventually(t, 60*time.Second, "both changes logged", func() (bool, string) {
		l := logs.String()
		return pollOf(l, brokerLine...) > 0 && pollOf(l, topicLine...) > 0 && pollOf(l, sensitiveLine...) > 0, fmt.Sprintf("%d polls", countPolls(l))
	})
	l := logs.String()
	for what, line := range map[string][]string{"broker": brokerLine, "topic": topicLine, "sensitive": sensitiveLine} {
		if p := pollOf(l, line...); p > altered+2 {
			t.Errorf("%s change found by poll %d; the alter returned before poll %d ended, so poll %d had to see it", what, p, altered+1, altered+2)
		}
	}

	// Two more polls: nothing new, every counter rose by exactly 1.
	seen := countPolls(logs.String())
	probetest.Eventually(t, 30*time.Second, "two more polls", func() (bool, string) {
		n := countPolls(logs.String())
		return n >= seen+2, fmt.Sprintf("%d polls, want %d", n, seen+2)
	})
	after := x.Scrape(t)
	counters := []struct {
		name   string
		labels []string
	}{
		{"kafka_bench_broker_config_changes_total", []string{"broker", b}},
		{"kafka_bench_topic_config_changes_total", []string{"probe", probe, "topic", topic}},
	}
	for _, ctr := range counters {
		was, _ := before.Value(ctr.name, ctr.labels...)
		now, _ := after.Value(ctr.name, ctr.labels...)
		if now != was+1 {
			t.Errorf("%s%v = %v, was %v: want exactly one more", ctr.name, ctr.labels, now, was)
		}
	}
	infos := []struct {
		name   string
		labels []string
	}{
		{"kafka_bench_broker_config_info", []string{"broker", b}},
		{"kafka_bench_topic_config_info", []string{"probe", probe, "topic", topic}},
	}
	for _, info := range infos {
		was, now := before.Label(info.name, "hash", info.labels...), after.Label(info.name, "hash", info.labels...)
		if n := len(after.Find(info.name, info.labels...)); was == now || n != 1 {
			t.Errorf("%s%v: hash %s -> %s, %d series; want one series with a new hash", info.name, info.labels, was, now, n)
		}
	}
	if v, _ := after.Value("kafka_bench_broker_config_value", "broker", b, "name", "log.cleaner.threads"); strconv.FormatFloat(v, 'f', -1, 64) != newThreads {
		t.Errorf("kafka_bench_broker_config_value{log.cleaner.threads} = %v, want %s", v, newThreads)
	}
	if v, _ := after.Value("kafka_bench_broker_config_last_change_timestamp_seconds", "broker", b); v <= 0 {
		t.Errorf("kafka_bench_broker_config_last_change_timestamp_seconds = %v", v)
	}
	for _, line := range [][]string{brokerLine, topicLine, sensitiveLine} {
		if n := countLines(logs.String(), line...); n != 1 {
			t.Errorf("%d log lines with %q, want 1", n, line)
		}
	}

	changes, body := getChanges(t, x.URL+"/changes")
	for where, text := range map[string]string{"the log": logs.String(), "/metrics": get(t, x.URL+"/metrics"), "/changes": body} {
		if strings.Contains(text, secret) {
			t.Errorf("the value of %s appears in %s", sensitiveKey, where)
		}
	}
	var gotBroker, gotTopic, gotSensitive bool
	for _, ch := range changes {
		gotSensitive = gotSensitive || (ch.Broker == b && ch.Key == sensitiveKey && ch.Sensitive && ch.Old == "" && ch.New == "")
		gotBroker = gotBroker || (ch.Resource == configwatch.KindBroker && ch.Broker == b && ch.Key == "log.cleaner.threads" &&
			ch.Old == oldThreads && ch.New == newThreads && ch.NewSource == "DYNAMIC_BROKER_CONFIG")
		gotTopic = gotTopic || (ch.Resource == configwatch.KindTopic && ch.Probe == probe && ch.Topic == topic &&
			ch.Key == "retention.ms" && ch.Old == oldRetention && ch.New == newRetention && ch.NewSource == "DYNAMIC_TOPIC_CONFIG")
	}
	if !gotBroker || !gotTopic || !gotSensitive {
		t.Errorf("/changes lacks the broker (%v), topic (%v) or sensitive (%v) change: %+v", gotBroker, gotTopic, gotSensitive, changes)
	}
}

// describeOne returns the effective value of one broker (topic "") or topic
// configuration key.
func describeOne(t *testing.T, ctx context.Context, adm *kadm.Client, broker int32, topic, key string) string {
	t.Helper()
	var rcs kadm.ResourceConfigs
	var err error
	if topic == "" {
		rcs, err = adm.DescribeBrokerConfigs(ctx, broker)
	} else {
		rcs, err = adm.DescribeTopicConfigs(ctx, topic)
	}
	if err != nil || len(rcs) != 1 || rcs[0].Err != nil {
		t.Fatalf("describing %s: %v %+v", key, err, rcs)
	}
	for _, c := range rcs[0].Configs {
		if c.Key == key {
			return c.MaybeValue()
		}
	}
	t.Fatalf("%s not described", key)
	return ""
}

// getChanges reads /changes, decoded and raw.
func getChanges(t *testing.T, url string) ([]configwatch.Change, string) {
	t.Helper()
	body := get(t, url)
	var out []configwatch.Change
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatalf("GET /changes: %v\n%s", err, body)
	}
	return out, body
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s %v", url, resp.Status, err)
	}
	return string(b)
}
