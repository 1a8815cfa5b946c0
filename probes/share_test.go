package probes_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/kclient"
	"github.com/kafka-bench/kafka_bench_exporter/probes"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
	"github.com/kafka-bench/kafka_bench_exporter/probes/tracker"
)

func shareConfig(extra string) string {
	return `
probes:
  - name: sq
    rate: 300
    lag_interval: 500ms
    loss_grace_period: 1s
    create_topic: {partitions: 3}
    consumer:
      kind: share
      consumers: 3
      fetch.max.wait.ms: 100
      share:
` + extra
}

// backlog starts a kfake cluster whose topic kafka-bench-sq holds records
// written before the probe starts.
func backlog(t *testing.T, records int) []string {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, "kafka-bench-sq"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.DefaultProduceTopic("kafka-bench-sq"))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for i := range records {
		if err := cl.ProduceSync(context.Background(), &kgo.Record{Value: fmt.Appendf(nil, "before the probe %d", i)}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	return c.ListenAddrs()
}

// A share probe with 3 members on 3 partitions on kfake: every record
// delivered once, accepted, nothing lost, duplicated or redelivered; lag
// and members known. The new group starts at the end of the topic: the
// records written before are not read.
func TestShareProbeSteady(t *testing.T) {
	const n = 900
	x := probetest.StartWith(t, shareConfig("        group.id: g-steady\n"), backlog(t, 60),
		probes.Options{Logger: probetest.Logger(), Bench: probes.BenchOptions{NumRecords: n}})
	probetest.Eventually(t, 60*time.Second, "every record accepted", func() (bool, string) {
		f := x.Gather(t)
		acc := probetest.Value(t, f, "kafka_bench_share_acks_total", "probe", "sq", "outcome", "accept")
		return acc >= n, fmt.Sprintf("accepted %v of %d", acc, n)
	})
	f := x.Gather(t)
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"kafka_bench_share_deliveries_total", []string{"delivery_count", "1"}, n},
		{"kafka_bench_share_deliveries_total", []string{"delivery_count", "2"}, 0},
		{"kafka_bench_share_redeliveries_total", nil, 0},
		{"kafka_bench_share_ack_failed_total", nil, 0},
		{"kafka_bench_share_records_archived_total", nil, 0},
		{"kafka_bench_records_duplicated_total", nil, 0},
		{"kafka_bench_records_out_of_order_total", nil, 0},
		{"kafka_bench_records_foreign_total", nil, 0},
		{"kafka_bench_consumed_records_total", nil, n},
	} {
		if got := probetest.Value(t, f, c.name, append([]string{"probe", "sq"}, c.labels...)...); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	if got := probetest.Value(t, f, "kafka_bench_share_delivery_latency_seconds", "probe", "sq"); got != n {
		t.Errorf("delivery latency observations = %v, want %d", got, n)
	}
	probetest.Eventually(t, 30*time.Second, "members and lag 0", func() (bool, string) {
		f := x.Gather(t)
		m, okM := f.Value("kafka_bench_share_group_members", "probe", "sq")
		l, okL := f.Value("kafka_bench_share_group_lag_records", "probe", "sq")
		return okM && okL && m == 3 && l == 0, fmt.Sprintf("members %v (%v), lag %v (%v)", m, okM, l, okL)
	})
	// Past the grace (lock × limit + loss_grace_period on kfake's 30 s lock
	// would be minutes): nothing may be lost meanwhile.
	if got := probetest.Value(t, x.Gather(t), "kafka_bench_records_lost_total", "probe", "sq"); got != 0 {
		t.Errorf("lost %v", got)
	}
}

// The fault knobs: the records ShareFault picks are released (and come
// back, counted as redeliveries by release) or rejected (archived); the
// counts are exact and nothing is lost.
func TestShareProbeFaultsCountedExactly(t *testing.T) {
	const n = 600 // 200 per partition, round robin from partition 0
	faults := config.ShareFaults{ReleaseFraction: 0.2, RejectFraction: 0.1}
	x := probetest.StartWith(t, shareConfig(`        group.id: g-faults
        faults: {release_fraction: 0.2, reject_fraction: 0.1}
`), probetest.Kfake(t, 1), probes.Options{Logger: probetest.Logger(), Bench: probes.BenchOptions{NumRecords: n}})
	var release, reject float64
	for p := range int32(3) {
		for seq := range uint64(n / 3) {
			switch probes.ShareFault(faults, p, seq) {
			case tracker.Release:
				release++
			case tracker.Reject:
				reject++
			}
		}
	}
	if release == 0 || reject == 0 {
		t.Fatalf("the fractions pick %v releases and %v rejects of %d", release, reject, n)
	}
	probetest.Eventually(t, 60*time.Second, "every record accepted or archived", func() (bool, string) {
		f := x.Gather(t)
		acc := probetest.Value(t, f, "kafka_bench_share_acks_total", "probe", "sq", "outcome", "accept")
		arch := probetest.Value(t, f, "kafka_bench_share_records_archived_total", "probe", "sq")
		return acc+arch >= n, fmt.Sprintf("accepted %v, archived %v of %d", acc, arch, n)
	})
	probetest.CheckCounts(t, x.Gather(t), "sq", append(probetest.ShareFaultCounts(n, release, reject),
		probetest.Want{Name: "kafka_bench_share_deliveries_total", Labels: []string{"delivery_count", "2"}, Value: release},
		probetest.Want{Name: "kafka_bench_records_duplicated_total"},
		probetest.Want{Name: "kafka_bench_records_lost_total"}))
}

// A cluster without share groups: the share probe stops at start with an
// error naming the probe and the broker's version; a group probe of the
// same process keeps running.
func TestShareProbeRefusedWithoutShareGroups(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.MaxVersions(kversion.V3_9_0()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	cfg := probetest.Config(t, `
probes:
  - name: sq
    consumer: {kind: share}
  - name: classic
    lag_interval: 500ms
`, c.ListenAddrs())
	classic, err := probetest.ShareBesideGroup(t, cfg, 30*time.Second)
	if !errors.Is(err, kclient.ErrNoShareGroups) {
		t.Fatalf("share probe: %v, want ErrNoShareGroups", err)
	}
	for _, want := range []string{`probe "sq"`, "consumer.kind share", "broker 0 runs Kafka ", "share.version not finalized"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	probetest.Eventually(t, 30*time.Second, "the group probe up", func() (bool, string) { return classic.Ready(), "not up" })
}

// A member of another process in the share group before the probe set its
// start offsets: the broker refuses them (NON_EMPTY_GROUP, as Kafka does
// for a group with members); the probe warns and runs, its members
// accepting records. (On kfake a member's assignment starts its share
// partitions, so the refusal is the broker's answer made here.)
func TestShareProbeStartsWhenOffsetsRefused(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, "kafka-bench-sq"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	var refused atomic.Int32
	c.ControlKey(kmsg.AlterShareGroupOffsets.Int16(), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		req := kreq.(*kmsg.AlterShareGroupOffsetsRequest)
		resp := req.ResponseKind().(*kmsg.AlterShareGroupOffsetsResponse)
		resp.ErrorCode = kerr.NonEmptyGroup.Code
		refused.Add(1)
		return resp, nil, true
	})
	logger, logs := probetest.CaptureLogger()
	x := probetest.StartWith(t, shareConfig("        group.id: g-foreign\n"), c.ListenAddrs(),
		probes.Options{Logger: logger, Bench: probes.BenchOptions{NumRecords: 600}})
	probetest.Eventually(t, 60*time.Second, "the probe's members accepting records", func() (bool, string) {
		acc, _ := x.Gather(t).Value("kafka_bench_share_acks_total", "probe", "sq", "outcome", "accept")
		return acc > 0, fmt.Sprintf("accepted %v (offsets refused %d times)", acc, refused.Load())
	})
	if n := refused.Load(); n != 1 {
		t.Errorf("the start offsets were asked for %d times, want once", n)
	}
	if !strings.Contains(logs.String(), "the share group has members of another process") {
		t.Errorf("no WARN about the other process's members:\n%s", logs)
	}
}

// consumer.isolation.level is the share group's share.isolation.level at
// every start, read_uncommitted too: a group left read_committed (by an
// earlier run of the probe, or by anyone) reads uncommitted records again
// once the configuration says so.
func TestShareProbeSetsIsolationLevel(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, "kafka-bench-sq"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	adm, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(adm.Close)
	ctx := context.Background()
	isolation := func() string {
		got, err := kclient.ShareGroupConfigs(ctx, adm, "g-iso")
		if err != nil {
			t.Fatal(err)
		}
		return got[kclient.ShareIsolationLevel]
	}
	for _, level := range []string{"read_committed", "read_uncommitted"} {
		other := map[string]string{"read_committed": "read_uncommitted", "read_uncommitted": "read_committed"}[level]
		if err := kclient.SetShareGroupConfigs(ctx, adm, "g-iso", map[string]string{kclient.ShareIsolationLevel: other}); err != nil {
			t.Fatal(err)
		}
		x := probetest.StartWith(t, shareConfig("        group.id: g-iso\n")+"      isolation.level: "+level+"\n", c.ListenAddrs(),
			probes.Options{Logger: probetest.Logger()})
		x.WaitReady(t, "sq", 30*time.Second)
		probetest.Eventually(t, 30*time.Second, "the group's share.isolation.level "+level, func() (bool, string) {
			got := isolation()
			return got == level, "share.isolation.level = " + got
		})
		x.Stop()
	}
}
