package groups

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/model"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testlog"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testwait"
)

// fakeClock is the collector's clock, moved by the test.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

type fixture struct {
	cl    *kgo.Client
	adm   *kadm.Client
	brks  []string
	clock *fakeClock
	reg   *prometheus.Registry
	logs  *testlog.Logs
	c     *Collector
}

func newFixture(t *testing.T, partitions int32, topics ...string) *fixture {
	t.Helper()
	fc, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(partitions, topics...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fc.Close)
	cl, err := kgo.NewClient(kgo.SeedBrokers(fc.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	f := &fixture{cl: cl, adm: kadm.NewClient(cl), brks: fc.ListenAddrs(), clock: &fakeClock{now: time.Unix(1_800_000_000, 0)},
		reg: prometheus.NewRegistry(), logs: &testlog.Logs{}}
	f.c = New(f.reg, slog.New(slog.NewTextHandler(f.logs, nil)), Options{Now: f.clock.Now})
	t.Cleanup(f.c.Stop)
	return f
}

// produce writes n records to a partition, each stamped at.
func (f *fixture) produce(t *testing.T, topic string, partition int32, n int, at time.Time) {
	t.Helper()
	for range n {
		r := &kgo.Record{Topic: topic, Partition: partition, Value: []byte("x"), Timestamp: at}
		if err := f.cl.ProduceSync(context.Background(), r).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
}

func (f *fixture) commit(t *testing.T, group, topic string, offsets map[int32]int64) {
	t.Helper()
	os := kadm.Offsets{}
	for p, o := range offsets {
		os.Add(kadm.Offset{Topic: topic, Partition: p, At: o, LeaderEpoch: -1})
	}
	if err := f.adm.CommitAllOffsets(context.Background(), group, os); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) target(g config.Groups, own ...string) Target {
	var c config.Config
	c.SetDefaults()
	c.Kafka.Brokers = f.brks
	base := c.Groups
	base.Interval = model.Duration(time.Second)
	base.StallWindow = model.Duration(time.Second)
	if g.Granularity != "" {
		base.Granularity = g.Granularity
	}
	if g.MaxSeries > 0 {
		base.MaxSeries = g.MaxSeries
	}
	base.Allow, base.Deny, base.ProbeGroups = g.Allow, g.Deny, g.ProbeGroups
	return Target{Kafka: config.Cluster{Kafka: c.Kafka}, Groups: base, Own: own}
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

// waitPolls waits for n more polls (the poll duration series is new each
// poll, so the count of successful ones is read from the clock-free
// success timestamp: the test moves the clock between polls).
func (f *fixture) waitPoll(t *testing.T) scrape.Families {
	t.Helper()
	f.clock.Add(time.Second)
	want := float64(f.clock.Now().UnixNano()) / 1e9
	var fs scrape.Families
	testwait.Until(t, 20*time.Second, 50*time.Millisecond, "a poll at the moved clock", func() (bool, string) {
		fs = f.gather(t)
		v, _ := fs.Value("kafka_bench_group_poll_last_success_timestamp_seconds")
		return v >= want, fmt.Sprintf("last success %v, want %v", v, want)
	})
	return fs
}

// A group that only commits (no members): lag in records per partition as
// the high watermark minus the committed offset, none for a partition
// without a committed offset, lag in seconds from the record at the
// committed offset (its backlog is older than the exporter's samples),
// status stopped, and an offset moved back counted as a reset.
func TestCommittedOnlyGroup(t *testing.T) {
	f := newFixture(t, 3, "orders")
	hourAgo := f.clock.Now().Add(-time.Hour)
	f.produce(t, "orders", 0, 10, hourAgo)
	f.produce(t, "orders", 1, 5, hourAgo)
	f.commit(t, "billing", "orders", map[int32]int64{0: 4, 1: 5})
	f.commit(t, "probe-own", "orders", map[int32]int64{0: 0})
	f.c.Apply(context.Background(), f.target(config.Groups{Granularity: config.GranularityPartition}, "probe-own"))
	fs := f.waitPoll(t)

	check := func(name string, want float64, labels ...string) {
		t.Helper()
		if got, ok := fs.Value(name, labels...); !ok || got != want {
			t.Errorf("%s%v = %v (present %v), want %v", name, labels, got, ok, want)
		}
	}
	check("kafka_bench_group_lag_records", 6, "group", "billing", "topic", "orders", "partition", "0")
	check("kafka_bench_group_lag_records", 0, "group", "billing", "topic", "orders", "partition", "1")
	check("kafka_bench_group_lag_seconds", 0, "group", "billing", "topic", "orders", "partition", "1")
	if n := len(fs.Find("kafka_bench_group_lag_records", "partition", "2")); n != 0 {
		t.Errorf("%d lag series for a partition without a committed offset, want none", n)
	}
	if got, ok := fs.Value("kafka_bench_group_lag_seconds", "group", "billing", "partition", "0"); !ok || got < 3600 || got > 3602 {
		t.Errorf("lag seconds of the record at the committed offset written an hour (and a poll) ago = %v (present %v)", got, ok)
	}
	check("kafka_bench_group_status", 1, "group", "billing", "status", StatusStopped)
	check("kafka_bench_group_members", 0, "group", "billing")
	check("kafka_bench_group_unassigned_partitions", 3, "group", "billing")
	check("kafka_bench_group_offset_resets_total", 0, "group", "billing")
	if n := len(fs.Find("kafka_bench_group_info", "group", "probe-own")); n != 0 {
		t.Error("a probe's own group is exported, want it left out by default")
	}
	check("kafka_bench_group_poll_success", 1)

	f.commit(t, "billing", "orders", map[int32]int64{0: 2})
	fs = f.waitPoll(t)
	check("kafka_bench_group_offset_resets_total", 1, "group", "billing")
	check("kafka_bench_group_lag_records", 8, "group", "billing", "topic", "orders", "partition", "0")
}

// Lag in seconds while the exporter watched the backlog build: the end
// offsets sampled at each poll date the record at the committed offset by
// the exporter's clock, whatever the record's own timestamp says (a
// producer whose clock is a day off).
func TestLagSecondsFromSamples(t *testing.T) {
	f := newFixture(t, 1, "events")
	skewed := f.clock.Now().Add(-24 * time.Hour)
	f.produce(t, "events", 0, 3, skewed)
	f.commit(t, "reader", "events", map[int32]int64{0: 3})
	f.c.Apply(context.Background(), f.target(config.Groups{Granularity: config.GranularityGroup}))
	f.waitPoll(t)
	// The reader stops at offset 3; records 3 and 4 are written after
	// the poll above and before the next.
	f.produce(t, "events", 0, 2, skewed)
	var fs scrape.Families
	for range 10 {
		fs = f.waitPoll(t)
	}
	// Written between the first poll (T+1s) and the second (T+2s), the
	// first of two records: T+1.5s; the tenth poll after is at T+11s.
	if got, ok := fs.Value("kafka_bench_group_lag_seconds", "group", "reader"); !ok || got != 9.5 {
		t.Errorf("lag seconds = %v (present %v), want 9.5 by the exporter's samples", got, ok)
	}
	if got, _ := fs.Value("kafka_bench_group_lag_records", "group", "reader"); got != 2 {
		t.Errorf("lag records = %v, want 2", got)
	}
	// No member, no move for a window: stopped wins over stalled.
	if got, _ := fs.Value("kafka_bench_group_status", "group", "reader", "status", StatusStopped); got != 1 {
		t.Errorf("status stopped = %v, want 1", got)
	}
}

// Past max_series the groups furthest behind in seconds are kept, whole;
// the others are counted and one WARN says so.
func TestMaxSeries(t *testing.T) {
	f := newFixture(t, 1, "t")
	now := f.clock.Now()
	f.produce(t, "t", 0, 1, now.Add(-3*time.Hour))
	f.produce(t, "t", 0, 1, now.Add(-2*time.Hour))
	f.produce(t, "t", 0, 1, now.Add(-time.Hour))
	f.commit(t, "far", "t", map[int32]int64{0: 0})
	f.commit(t, "mid", "t", map[int32]int64{0: 1})
	f.commit(t, "near", "t", map[int32]int64{0: 2})
	// A group's series: info, members, unassigned, moved, resets, four
	// statuses, lag records and seconds at group granularity = 11.
	f.c.Apply(context.Background(), f.target(config.Groups{Granularity: config.GranularityGroup, MaxSeries: 25}))
	var fs scrape.Families
	for range 3 {
		fs = f.waitPoll(t)
	}
	for group, want := range map[string]bool{"far": true, "mid": true, "near": false} {
		if _, ok := fs.Value("kafka_bench_group_lag_records", "group", group); ok != want {
			t.Errorf("group %s exported %v, want %v", group, ok, want)
		}
	}
	if got, _ := fs.Value("kafka_bench_group_series_dropped"); got != 11 {
		t.Errorf("series dropped = %v, want 11", got)
	}
	if n := strings.Count(f.logs.String(), "groups.max_series"); n != 1 {
		t.Errorf("%d WARN lines about max_series over three polls, want 1", n)
	}
}

// Allow and deny select groups; a group the allow list names that no
// broker lists is reported as not visible.
func TestAllowDenyAndNotVisible(t *testing.T) {
	f := newFixture(t, 1, "t")
	f.produce(t, "t", 0, 1, f.clock.Now())
	for _, g := range []string{"pay-eu", "pay-test", "other"} {
		f.commit(t, g, "t", map[int32]int64{0: 0})
	}
	f.c.Apply(context.Background(), f.target(config.Groups{Allow: []string{"pay-.*", "ghost"}, Deny: []string{".*-test"}}))
	fs := f.waitPoll(t)
	for group, want := range map[string]bool{"pay-eu": true, "pay-test": false, "other": false} {
		if _, ok := fs.Value("kafka_bench_group_lag_records", "group", group, "topic", "t"); ok != want {
			t.Errorf("group %s exported %v, want %v", group, ok, want)
		}
	}
	if r := fs.Label("kafka_bench_group_not_read_info", "reason", "group", "ghost"); !strings.HasPrefix(r, "not visible") {
		t.Errorf("ghost's reason = %q, want not visible", r)
	}
}

// A poll's series come in the order a scrape sorts them in (by label
// values, labels by name: partition 10 before 2), whatever order
// max_series keeps the groups in, and the labels of a group gone are
// forgotten at the next poll.
func TestSeriesInScrapeOrder(t *testing.T) {
	f := newFixture(t, 12, "a", "b")
	now := f.clock.Now()
	for _, topic := range []string{"a", "b"} {
		for part := range int32(12) {
			f.produce(t, topic, part, 2, now.Add(-time.Hour))
		}
	}
	offsets := map[int32]int64{}
	for part := range int32(12) {
		offsets[part] = 1
	}
	// z is the furthest behind in seconds: first for max_series, last by
	// name.
	f.produce(t, "a", 0, 1, now.Add(-3*time.Hour))
	for _, g := range []string{"z", "m", "b"} {
		f.commit(t, g, "a", offsets)
		f.commit(t, g, "b", offsets)
	}
	f.commit(t, "z", "a", map[int32]int64{0: 2})
	tg := f.target(config.Groups{Granularity: config.GranularityPartition})
	p := &poller{cl: f.cl, adm: f.adm, target: tg, st: newState(), logger: slog.New(slog.NewTextHandler(f.logs, nil)),
		now: f.clock.Now, own: map[string]bool{}}
	p.poll(context.Background())
	f.clock.Add(time.Second)
	ms := p.poll(context.Background())

	last := map[string][]string{} // family -> label values of its last series
	lag := 0
	for _, m := range ms {
		var d dto.Metric
		if err := m.Write(&d); err != nil {
			t.Fatal(err)
		}
		name := m.Desc().String()
		var values []string
		for _, l := range d.GetLabel() {
			values = append(values, l.GetValue())
		}
		if prev, ok := last[name]; ok && slices.Compare(prev, values) >= 0 {
			t.Errorf("%s: series %q after %q, a scrape sorts them the other way", name, values, prev)
		}
		last[name] = values
		if strings.Contains(name, "kafka_bench_group_lag_records") {
			lag++
		}
	}
	if lag != 3*24 {
		t.Errorf("%d lag records series, want %d", lag, 3*24)
	}

	if _, err := f.adm.DeleteGroups(context.Background(), "m"); err != nil {
		t.Fatal(err)
	}
	f.clock.Add(time.Second)
	p.poll(context.Background())
	for k := range p.st.labels.pairs {
		if k == (pairKey{"group", "m"}) {
			t.Fatalf("labels of the deleted group m kept: %+v", k)
		}
	}
	if len(p.st.labels.pairs) == 0 {
		t.Fatal("no label pairs kept after a poll with groups")
	}
}
