package probes

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
	"github.com/kafka-bench/kafka_bench_exporter/probes/payload"
	"github.com/kafka-bench/kafka_bench_exporter/probes/promsink"
)

// TestLagView: records past the offset are summed over partitions, seconds
// are the age of the oldest of them, and a position at or past the end
// offset (read after the end offsets were listed) is no lag at all.
func TestLagView(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	pt := newProduceTimes()
	for off := range int64(100) {
		pt.add(0, off, t0.Add(time.Duration(off)*10*time.Millisecond).UnixNano())
		pt.add(1, off, t0.Add(time.Duration(off)*10*time.Millisecond).UnixNano())
	}
	now := t0.Add(time.Second)

	var caughtUp lagView
	caughtUp.add(pt, 0, 100, 100)
	caughtUp.add(pt, 1, 100, 103) // position past the listed end
	if s, ok := caughtUp.seconds(now); caughtUp.records != 0 || s != 0 || !ok {
		t.Errorf("caught up: %d records, %v s (known %v); want 0, 0 (known)", caughtUp.records, s, ok)
	}

	var behind lagView
	behind.add(pt, 0, 100, 90) // oldest unread record intended at +900 ms
	behind.add(pt, 1, 100, 95)
	if behind.records != 15 {
		t.Errorf("records = %d, want 15", behind.records)
	}
	if got, ok := behind.seconds(now); !ok || got < 0.0999 || got > 0.1001 {
		t.Errorf("seconds = %v, want 0.1 (the record at offset 90 of partition 0)", got)
	}
}

// TestPositions: unknown until the first record, then the last value set;
// reset forgets everything.
func TestPositions(t *testing.T) {
	ps := newPositions()
	if _, ok := ps.get(0); ok {
		t.Fatal("position known before any record")
	}
	ps.set(0, 10)
	ps.set(0, 7) // a rebalance restarted the partition at its committed offset
	if n, ok := ps.get(0); !ok || n != 7 {
		t.Fatalf("get = %d, %v; want 7, true", n, ok)
	}
	ps.reset()
	if _, ok := ps.get(0); ok {
		t.Fatal("position kept after reset")
	}
}

// TestConsumerSetsPosition: processing a poll moves each partition's
// position past its last record, probe record or not.
func TestConsumerSetsPosition(t *testing.T) {
	p, _ := newIdleProbe(t)
	c := &consumer{runDeps: p.runDeps}
	rec := func(part int32, off int64) *kgo.Record {
		return &kgo.Record{Partition: part, Offset: off, Value: header(payload.Header{RunID: p.runID, Partition: part, Seq: uint64(off)}, 64)}
	}
	c.process(fetchOf(rec(0, 0), rec(0, 1), rec(2, 41), &kgo.Record{Partition: 2, Offset: 42, Value: []byte("foreign")}), time.Now())
	for part, want := range map[int32]int64{0: 2, 2: 43} {
		if got, ok := p.positions.get(part); !ok || got != want {
			t.Errorf("partition %d: position %d, %v; want %d", part, got, ok, want)
		}
	}
	if _, ok := p.positions.get(1); ok {
		t.Error("partition 1 has a position without a record")
	}
}

// lagProbe is a probe on topic t of a kfake cluster with its admin client,
// as Run sets it up, and the registry of its metrics.
func lagProbe(t *testing.T, name string, cl *kgo.Client, edit func(*config.Probe)) (*Probe, *prometheus.Registry) {
	t.Helper()
	cfg := config.NewProbe(name)
	cfg.Topic = "t"
	if edit != nil {
		edit(&cfg)
	}
	cfg.Resolve()
	reg := prometheus.NewRegistry()
	p := New(cfg, Options{Sinks: []event.Sink{promsink.NewMetrics(reg)}})
	p.admin = kadm.NewClient(cl)
	return p, reg
}

// fill writes n records into partition of topic t.
func fill(t *testing.T, cl *kgo.Client, partition int32, n int) {
	t.Helper()
	var recs []*kgo.Record
	for range n {
		recs = append(recs, &kgo.Record{Topic: "t", Partition: partition, Value: []byte("x")})
	}
	if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

func commit(t *testing.T, adm *kadm.Client, group string, partition int32, at int64) {
	t.Helper()
	resp, err := adm.CommitOffsets(context.Background(), group, kadm.Offsets{"t": {partition: {Topic: "t", Partition: partition, At: at, LeaderEpoch: -1}}})
	if err == nil {
		err = resp.Error()
	}
	if err != nil {
		t.Fatal(err)
	}
}

// Lag counts a partition the consumer has neither read nor committed (added
// while the probe runs) from its start offset, in both views; when the end
// offsets cannot be listed, the lag series are dropped instead of keeping
// their last value.
func TestLagFromStartOffsetAndDroppedWhenUnknown(t *testing.T) {
	c, cl := fakeTopic(t, 2)
	p, reg := lagProbe(t, "lagstart", cl, nil)
	fill(t, cl, 0, 10)
	fill(t, cl, 1, 5)
	if _, err := p.admin.DeleteRecords(context.Background(), kadm.Offsets{"t": {1: {Topic: "t", Partition: 1, At: 2, LeaderEpoch: -1}}}); err != nil {
		t.Fatal(err)
	}
	commit(t, p.admin, p.cfg.Consumer.GroupID, 0, 2)
	p.positions.set(0, 4)
	for off := range int64(10) {
		p.produceTimes.add(0, off, p.clk.now().UnixNano())
		p.produceTimes.add(1, off, p.clk.now().UnixNano())
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p.updateLag(ctx, p.clk.now())
	f := scrape.MustGather(t, reg)
	// Partition 0: end 10, position 4, commit 2. Partition 1: records 2-4
	// (the first two deleted), no position, no commit.
	for name, want := range map[string]float64{"kafka_bench_consumer_lag_records": 6 + 3, "kafka_bench_consumer_group_lag_records": 8 + 3} {
		if got := mustValue(t, f, name, "probe", "lagstart"); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	for _, name := range []string{"kafka_bench_consumer_lag_seconds", "kafka_bench_consumer_group_lag_seconds"} {
		mustValue(t, f, name, "probe", "lagstart")
	}

	c.Close() // Kafka away: the end offsets cannot be listed
	ctx, cancel = context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	p.updateLag(ctx, p.clk.now())
	f = scrape.MustGather(t, reg)
	for _, name := range []string{"kafka_bench_consumer_lag_records", "kafka_bench_consumer_lag_seconds",
		"kafka_bench_consumer_group_lag_records", "kafka_bench_consumer_group_lag_seconds"} {
		if v, ok := f.Value(name, "probe", "lagstart"); ok {
			t.Errorf("%s = %v kept while the end offsets cannot be listed; want no series", name, v)
		}
	}
}

// With acks=0 franz-go reports offsets counted from 0 in every batch; lag in
// seconds built from them read 1 s for a consumer 3,000 records (5 minutes)
// behind. It is absent instead; lag in records is still exact.
func TestAcks0LagSecondsAbsent(t *testing.T) {
	_, cl := fakeTopic(t, 1)
	p, reg := lagProbe(t, "acks0", cl, func(cfg *config.Probe) { cfg.Producer.Acks = "0"; cfg.Producer.EnableIdempotence = new(bool) })
	fill(t, cl, 0, 3000)
	commit(t, p.admin, p.cfg.Consumer.GroupID, 0, 0)

	// 3,000 records over 5 minutes, acknowledged in batches of 10 whose
	// offsets franz-go reports as 0-9.
	pr := newProducer(p.runDeps, nil, 0)
	start := p.clk.now().Add(-5 * time.Minute)
	for i := range 3000 {
		intended := start.Add(time.Duration(i) * 100 * time.Millisecond)
		r := &kgo.Record{Partition: 0, Offset: int64(i % 10), Value: pr.pool.Get(payload.Header{RunID: p.runID, Seq: uint64(i), Intended: intended.UnixNano()})}
		pr.promise(r, nil)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p.updateLag(ctx, p.clk.now())
	f := scrape.MustGather(t, reg)
	for _, name := range []string{"kafka_bench_consumer_lag_records", "kafka_bench_consumer_group_lag_records"} {
		if got := mustValue(t, f, name, "probe", "acks0"); got != 3000 {
			t.Errorf("%s = %v, want 3000", name, got)
		}
	}
	for _, name := range []string{"kafka_bench_consumer_lag_seconds", "kafka_bench_consumer_group_lag_seconds"} {
		if v, ok := f.Value(name, "probe", "acks0"); ok {
			t.Errorf("%s = %v with acks=0 (the consumer is 300 s behind); want no series", name, v)
		}
	}
}

// fakeTopic is a one-broker kfake cluster with topic "t" of n partitions,
// and a client that writes to the partition each record names.
func fakeTopic(t *testing.T, n int32) (*kfake.Cluster, *kgo.Client) {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(n, "t"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return c, cl
}

func mustValue(t *testing.T, f scrape.Families, name string, labels ...string) float64 {
	t.Helper()
	v, ok := f.Value(name, labels...)
	if !ok {
		t.Fatalf("%s%v missing", name, labels)
	}
	return v
}

// While the group's committed offsets cannot be fetched (a transient
// failure) and the consumer has read nothing yet, where it starts is
// unknown: the own view has no series, where it read the whole retained
// topic as lag. A partition with a position keeps its own lag.
func TestLagUnknownWithoutPositionOrCommit(t *testing.T) {
	c, cl := fakeTopic(t, 2)
	p, reg := lagProbe(t, "nofetch", cl, nil)
	fill(t, cl, 0, 10)
	fill(t, cl, 1, 10)
	c.ControlKey(int16(kmsg.OffsetFetch), func(kr kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		req := kr.(*kmsg.OffsetFetchRequest)
		resp := req.ResponseKind().(*kmsg.OffsetFetchResponse)
		resp.Version = req.Version
		code := kerr.GroupAuthorizationFailed.Code
		resp.ErrorCode = code
		for _, g := range req.Groups {
			resp.Groups = append(resp.Groups, kmsg.OffsetFetchResponseGroup{Group: g.Group, ErrorCode: code})
		}
		return resp, nil, true
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p.updateLag(ctx, p.clk.now())
	f := scrape.MustGather(t, reg)
	for _, name := range []string{"kafka_bench_consumer_lag_records", "kafka_bench_consumer_lag_seconds",
		"kafka_bench_consumer_group_lag_records", "kafka_bench_consumer_group_lag_seconds"} {
		if v, ok := f.Value(name, "probe", "nofetch"); ok {
			t.Errorf("%s = %v with no position and no committed offsets; want no series", name, v)
		}
	}

	p.positions.set(0, 7)
	p.positions.set(1, 10)
	p.updateLag(ctx, p.clk.now())
	f = scrape.MustGather(t, reg)
	if got := mustValue(t, f, "kafka_bench_consumer_lag_records", "probe", "nofetch"); got != 3 {
		t.Errorf("own lag = %v with positions 7 and 10 of 10, want 3", got)
	}
	if v, ok := f.Value("kafka_bench_consumer_group_lag_records", "probe", "nofetch"); ok {
		t.Errorf("group lag = %v while the committed offsets cannot be fetched; want no series", v)
	}
}

// A committed offset that retention left behind (below the log start) is
// reset by auto.offset.reset when the probe starts, before its producer
// does: latest commits the end, so the consumer starts at this run's first
// record instead of jumping, once records of the run exist, past them (they
// counted as lost); earliest commits the log start. A commit in range and
// a partition never committed are handled as ever.
func TestStartResetsCommitsOutOfRange(t *testing.T) {
	for _, reset := range []string{"latest", "earliest"} {
		t.Run(reset, func(t *testing.T) {
			_, cl := fakeTopic(t, 3)
			p, _ := lagProbe(t, "reset-"+reset, cl, func(cfg *config.Probe) { cfg.Consumer.AutoOffsetReset = reset })
			for part := range int32(3) {
				fill(t, cl, part, 10)
			}
			if _, err := p.admin.DeleteRecords(context.Background(), kadm.Offsets{"t": {0: {Topic: "t", Partition: 0, At: 6, LeaderEpoch: -1}}}); err != nil {
				t.Fatal(err)
			}
			group := p.cfg.Consumer.GroupID
			commit(t, p.admin, group, 0, 2) // deleted by retention
			commit(t, p.admin, group, 1, 4)
			if err := p.startAtEnd(context.Background()); err != nil {
				t.Fatal(err)
			}
			got, err := p.admin.FetchOffsets(context.Background(), group)
			if err != nil {
				t.Fatal(err)
			}
			want := map[int32]int64{0: 6, 1: 4, 2: 10}
			if reset == "latest" {
				want[0] = 10
			}
			for part, at := range want {
				if c, ok := got.Lookup("t", part); !ok || c.At != at {
					t.Errorf("partition %d: committed %v (%v), want %d", part, c.At, ok, at)
				}
			}
		})
	}
}
