package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-bench/kafka_bench_exporter/internal/exportertest"
	"github.com/kafka-bench/kafka_bench_exporter/internal/kafkatest"
	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

// Releases of the rolling upgrade: the jars of both come from
// scripts/kafka.sh (KAFKA_VERSION=4.1.1 scripts/kafka.sh lib).
const (
	upgradeFrom = "4.1.1"
	upgradeTo   = "4.4.0"
)

// TestRollingRestarts runs the two rolling-restart tests side by side, on
// clusters of their own and beside no other test: they wait on restarts
// far more than they compute, and beside other tests' load their restarted
// brokers came back too late for their timeouts. After the upgrade, the
// shorter of the two, comes the outage of a broker of its own, which
// waits a minute on a stopped broker.
func TestRollingRestarts(t *testing.T) {
	sideBySide(t, []subtest{{"StaticConfigExperiment", testStaticConfigExperimentRollingRestart}},
		[]subtest{{"Upgrade", testRollingUpgrade}, {"AllBrokersDownForAMinute", testAllBrokersDownForAMinute}})
}

// testRollingUpgrade (TestRollingRestarts) upgrades three combined broker/controller nodes from
// Kafka 4.1.1 to 4.4.0, one at a time, under a probe at 1,000 records/s
// (RF 3, min.insync.replicas 2, acks=all), then finalizes metadata.version:
// nothing is lost, probe_up is back within 30 s of each broker's return,
// the daemon counts each restart and shows each broker's new release in
// kafka_bench_broker_info and /changes, and the finalized level in
// kafka_bench_cluster_info. It logs each broker's restart time and the
// produce p99 while it restarted.
func testRollingUpgrade(t *testing.T) {
	kafkatest.Integration(t)
	c := kafkatest.Start(t, kafkatest.Options{Nodes: 3, KafkaVersion: upgradeFrom})
	const probe = "upgrade"
	topic := "kafka-bench-" + probe
	// Broker configurations and releases are read every 5 s, not every
	// minute: the finalized metadata.version shows at the next read.
	x := exportertest.Start(t, `
config_poll_interval: 5s
probes:
  - name: upgrade
    rate: 1000
    record_size: 512
    lag_interval: 1s
    create_topic: {partitions: 3, replication_factor: 3, configs: {min.insync.replicas: "2"}}
    producer: {acks: all, enable.idempotence: true}
`, c.Bootstrap())
	x.WaitReady(t, 60*time.Second)
	// As waitSteady, with more time: three JVMs of a new cluster and the
	// probe share two cores with whatever else runs.
	probetest.Eventually(t, 3*time.Minute, "probe "+probe+" in steady state", func() (bool, string) {
		f := x.Scrape(t)
		buffered, ok := f.Value("kafka_bench_client_buffered_produce_records", "probe", probe, "role", "producer")
		return ok && buffered < 200, fmt.Sprintf("buffered produce records=%v", buffered)
	})
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Bootstrap()...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	fromLabel, toLabel := releaseLabel(upgradeFrom), releaseLabel(upgradeTo)
	probetest.Eventually(t, 90*time.Second, "every broker's release in kafka_bench_broker_info", func() (bool, string) {
		f := x.Scrape(t)
		got := brokerVersions(f)
		return len(got) == 3 && got["1"] == fromLabel && got["2"] == fromLabel && got["3"] == fromLabel, fmt.Sprint(got)
	})

	for i := range c.Nodes() {
		id := strconv.Itoa(int(c.NodeID(i)))
		before := x.Scrape(t)
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		start := time.Now()
		if err := c.Upgrade(ctx, i, upgradeTo); err != nil {
			cancel()
			t.Fatalf("upgrading broker %s: %v", id, err)
		}
		cancel()
		back := time.Now()
		probetest.Eventually(t, 30*time.Second, "probe_up within 30 s of broker "+id+"'s return", func() (bool, string) {
			up := value(t, x.Scrape(t), "kafka_bench_probe_up", probe)
			return up == 1, fmt.Sprintf("probe_up=%v", up)
		})
		upAfter := time.Since(back)
		probetest.Eventually(t, 30*time.Second, "broker "+id+"'s restart and release seen", func() (bool, string) {
			f := x.Scrape(t)
			n, _ := f.Value("kafka_bench_broker_restarts_total", "broker", id)
			v := brokerVersions(f)[id]
			return n == 1 && v == toLabel, fmt.Sprintf("restarts %v, version %q", n, v)
		})
		seen := time.Since(back)
		waitInSync(t, cl, topic)
		after := x.Scrape(t)
		t.Logf("broker %s: %s → %s in %.1fs (stop, start, registered); probe up %.1fs and restart and release seen %.1fs after; produce p99 over the restart ≤ %s",
			id, upgradeFrom, upgradeTo, back.Sub(start).Seconds(), upAfter.Seconds(), seen.Seconds(),
			p99Between(before, after, "kafka_bench_produce_latency_seconds", probe))
	}

	level := finalizeMetadataVersion(t, cl)
	probetest.Eventually(t, 90*time.Second, "the finalized metadata.version in kafka_bench_cluster_info", func() (bool, string) {
		f := x.Scrape(t)
		got, ver := f.Label("kafka_bench_cluster_info", "metadata_version"), f.Label("kafka_bench_cluster_info", "version")
		return got == strconv.Itoa(int(level)) && ver == toLabel, fmt.Sprintf("metadata_version %q, version %q", got, ver)
	})
	changes := changesOf(t, x)
	for i := range c.Nodes() {
		id := strconv.Itoa(int(c.NodeID(i)))
		want := fmt.Sprintf("broker %s version %s → %s", id, fromLabel, toLabel)
		if !changes[want] {
			t.Errorf("/changes lacks %q: %v", want, changes)
		}
		if v, _ := x.Scrape(t).Value("kafka_bench_broker_version_changes_total", "broker", id); v != 1 {
			t.Errorf("broker %s: kafka_bench_broker_version_changes_total = %v, want 1", id, v)
		}
	}
	f := drain(t, x, probe)
	assertCounters(t, f, probe, clean)
}

// releaseLabel is the version label of a release: "4.1.1" → "v4.1".
func releaseLabel(v string) string {
	parts := 0
	for i, r := range v {
		if r == '.' {
			if parts++; parts == 2 {
				return "v" + v[:i]
			}
		}
	}
	return "v" + v
}

// brokerVersions are the version labels of kafka_bench_broker_info, by broker.
func brokerVersions(f scrape.Families) map[string]string {
	out := map[string]string{}
	for _, m := range f.Find("kafka_bench_broker_info") {
		var b, v string
		for _, l := range m.GetLabel() {
			switch l.GetName() {
			case "broker":
				b = l.GetValue()
			case "version":
				v = l.GetValue()
			}
		}
		out[b] = v
	}
	return out
}

// waitInSync waits until every partition of topic has its full ISR again.
func waitInSync(t *testing.T, cl *kgo.Client, topic string) {
	t.Helper()
	probetest.Eventually(t, 2*time.Minute, "every partition of "+topic+" in sync", func() (bool, string) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		req := kmsg.NewPtrMetadataRequest()
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = new(topic)
		req.Topics = append(req.Topics, rt)
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			return false, err.Error()
		}
		for _, tp := range resp.Topics {
			for _, p := range tp.Partitions {
				if len(p.ISR) < len(p.Replicas) || p.Leader < 0 {
					return false, fmt.Sprintf("partition %d: replicas %v, in sync %v", p.Partition, p.Replicas, p.ISR)
				}
			}
		}
		return true, ""
	})
}

// finalizeMetadataVersion raises the finalized metadata.version to the
// highest every broker supports (kafka-features.sh upgrade) and returns it.
func finalizeMetadataVersion(t *testing.T, cl *kgo.Client) int16 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	av := kmsg.NewPtrApiVersionsRequest()
	av.ClientSoftwareName, av.ClientSoftwareVersion = "kafka-bench-test", "1"
	avr, err := av.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	var level int16 = -1
	for _, f := range avr.SupportedFeatures {
		if f.Name == "metadata.version" {
			level = f.MaxVersion
		}
	}
	if level < 0 {
		t.Fatal("no broker supports metadata.version")
	}
	req := kmsg.NewPtrUpdateFeaturesRequest()
	u := kmsg.NewUpdateFeaturesRequestFeatureUpdate()
	u.Feature, u.MaxVersionLevel, u.UpgradeType = "metadata.version", level, 1 // upgrade
	req.FeatureUpdates = append(req.FeatureUpdates, u)
	req.TimeoutMillis = 30000
	resp, err := req.RequestWith(ctx, cl)
	if err == nil {
		err = kerr.ErrorForCode(resp.ErrorCode)
	}
	for _, r := range resp.Results {
		if e := kerr.ErrorForCode(r.ErrorCode); e != nil && err == nil {
			err = fmt.Errorf("%s: %w (%s)", r.Feature, e, deref(r.ErrorMessage))
		}
	}
	if err != nil {
		t.Fatalf("finalizing metadata.version %d: %v", level, err)
	}
	t.Logf("metadata.version finalized at level %d", level)
	return level
}

// changesOf reads GET /changes as "broker B key old → new" lines.
func changesOf(t *testing.T, x *exportertest.Exporter) map[string]bool {
	t.Helper()
	resp, err := http.Get(x.URL + "/changes")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	var list []struct{ Resource, Broker, Key, Old, New string }
	if err := json.Unmarshal(body, &list); err != nil {
		t.Fatalf("/changes: %v\n%s", err, body)
	}
	out := map[string]bool{}
	for _, c := range list {
		out[fmt.Sprintf("%s %s %s %s → %s", c.Resource, c.Broker, c.Key, c.Old, c.New)] = true
	}
	return out
}

// p99Between is the upper bound of the bucket that holds the 99th
// percentile of what histogram name observed for probe between two
// scrapes, over every broker's series.
func p99Between(a, b scrape.Families, name, probe string) string {
	delta := map[float64]uint64{}
	var total uint64
	add := func(f scrape.Families, sign int) {
		for _, m := range f.Find(name, "probe", probe) {
			h := m.GetHistogram()
			if h == nil {
				continue
			}
			for _, bk := range h.GetBucket() {
				if sign > 0 {
					delta[bk.GetUpperBound()] += bk.GetCumulativeCount()
				} else {
					delta[bk.GetUpperBound()] -= bk.GetCumulativeCount()
				}
			}
			if sign > 0 {
				total += h.GetSampleCount()
			} else {
				total -= h.GetSampleCount()
			}
		}
	}
	add(b, 1)
	add(a, -1)
	bounds := make([]float64, 0, len(delta))
	for le := range delta {
		bounds = append(bounds, le)
	}
	sort.Float64s(bounds)
	for _, le := range bounds {
		if float64(delta[le]) >= 0.99*float64(total) {
			return (time.Duration(le * float64(time.Second))).String()
		}
	}
	return "above the largest bucket"
}
