package groups

import (
	"context"
	"fmt"
	"log/slog"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/config"
)

// BenchmarkPoll is one poll of groups × 8 group-partitions (two topics of 4
// partitions each, every partition behind) on kfake, and the scrape of
// its series, at each granularity: ns, bytes and allocations per
// group-partition. kfake answers in the same process, so its cost is in
// the numbers too (the same in both builds compared).
func BenchmarkPoll(b *testing.B) {
	for _, gran := range []string{config.GranularityTopic, config.GranularityPartition} {
		b.Run(fmt.Sprintf("groups=200/granularity=%s", gran), func(b *testing.B) { benchPoll(b, 200, gran) })
	}
}

func benchPoll(b *testing.B, groups int, granularity string) {
	const topics, partitions = 100, 4
	names := make([]string, topics)
	for i := range names {
		names[i] = fmt.Sprintf("t%03d", i)
	}
	fc, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(partitions, names...))
	if err != nil {
		b.Fatal(err)
	}
	defer fc.Close()
	cl, err := kgo.NewClient(kgo.SeedBrokers(fc.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ctx := context.Background()
	at := time.Unix(1_800_000_000, 0)
	for _, t := range names {
		var rs []*kgo.Record
		for p := range int32(partitions) {
			for range 20 {
				rs = append(rs, &kgo.Record{Topic: t, Partition: p, Value: []byte("x"), Timestamp: at})
			}
		}
		if err := cl.ProduceSync(ctx, rs...).FirstErr(); err != nil {
			b.Fatal(err)
		}
	}
	for g := range groups {
		os := kadm.Offsets{}
		for k := range 2 {
			t := names[(2*g+k)%topics]
			for p := range int32(partitions) {
				os.Add(kadm.Offset{Topic: t, Partition: p, At: int64(1 + (g+int(p))%19), LeaderEpoch: -1})
			}
		}
		if err := adm.CommitAllOffsets(ctx, fmt.Sprintf("g%04d", g), os); err != nil {
			b.Fatal(err)
		}
	}
	var c config.Config
	c.SetDefaults()
	gs := c.Groups
	gs.Granularity = granularity
	gs.MaxSeries = 1_000_000
	now := at.Add(time.Hour)
	p := &poller{cl: cl, adm: adm, target: Target{Groups: gs}, st: newState(), logger: slog.New(slog.DiscardHandler),
		now: func() time.Time { return now }, own: map[string]bool{}}
	reg := prometheus.NewRegistry()
	var last []prometheus.Metric
	reg.MustRegister(collectorFunc(func(ch chan<- prometheus.Metric) {
		for _, m := range last {
			ch <- m
		}
	}))
	last = p.poll(ctx) // the first poll reads the records at the committed offsets
	mfs, err := reg.Gather()
	if err != nil {
		b.Fatal(err)
	}
	lagged := 0
	for _, mf := range mfs {
		if mf.GetName() == "kafka_bench_group_lag_seconds" {
			lagged = len(mf.GetMetric())
		}
	}
	if lagged == 0 {
		b.Fatal("no lag in seconds after the first poll")
	}
	b.ReportAllocs()
	cpu0 := cpuTime(b)
	b.ResetTimer()
	for b.Loop() {
		now = now.Add(10 * time.Second)
		last = p.poll(ctx)
		if _, err := reg.Gather(); err != nil {
			b.Fatal(err)
		}
	}
	gp := float64(groups * 2 * partitions)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/gp, "ns/group-partition")
	// The process's CPU time, steadier than ns/op on a busy machine.
	b.ReportMetric(float64((cpuTime(b)-cpu0).Nanoseconds())/float64(b.N)/gp, "cpu-ns/group-partition")
}

// cpuTime is the CPU time of the process so far (user and system).
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

type collectorFunc func(chan<- prometheus.Metric)

func (collectorFunc) Describe(chan<- *prometheus.Desc)      {}
func (f collectorFunc) Collect(ch chan<- prometheus.Metric) { f(ch) }
