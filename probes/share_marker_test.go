package probes

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testwait"
	"github.com/kafka-bench/kafka_bench_exporter/kclient"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
	"github.com/kafka-bench/kafka_bench_exporter/probes/payload"
	"github.com/kafka-bench/kafka_bench_exporter/probes/tracker"
)

// A committed transaction's marker has an offset that the broker hands out
// (acquires) with the transaction's records. A member on the in-process
// cluster, with the client options of a share probe and a group reading
// read_committed, reads a committed transaction and holds that poll a
// second before answering it (faults.hold): its client fetches on
// meanwhile. Every answer its client reports must be to a set of the
// member's own. Were the marker acknowledged by the client on its own (a
// gap, sent with the fetch during the hold), the broker's answer to that
// acknowledgement would reach the member with nothing to tell it from an
// answer to one of its sets: it would confirm the wrong set, or none, and
// the member's next sets would be of unknown outcome.
func TestShareMemberAcknowledgesTransactionMarkers(t *testing.T) {
	const topic, group, run = "sm", "sm-group", 7
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, topic))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	seeds := kgo.SeedBrokers(c.ListenAddrs()...)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	admin, err := kgo.NewClient(seeds)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if err := kclient.SetShareGroupConfigs(ctx, admin, group, map[string]string{
		kclient.ShareAutoOffsetReset: "earliest",
		kclient.ShareIsolationLevel:  "read_committed",
	}); err != nil {
		t.Fatal(err)
	}

	var cfg config.Probe
	cfg.SetDefaults()
	cfg.Name, cfg.Topic = "sm", topic
	cfg.Consumer.Share.GroupID = group
	cfg.Consumer.Share.Faults.Hold = model.Duration(time.Second)
	sink := &shareSinkT{acks: map[tracker.ShareAction]uint64{}, ackFailed: map[tracker.ShareAction]uint64{},
		unknown: map[tracker.UnknownResolution]uint64{}}
	logger := slog.New(slog.DiscardHandler)
	sh := &shared{cfg: cfg, clk: newClock(), ev: event.New(sink), logger: logger, errs: newErrLog(logger)}
	sh.live = &liveness{cfg: cfg, partitions: &sh.partitions, report: func(bool) {}, logger: logger}
	share := tracker.NewShare(run, tracker.ShareConfig{Grace: time.Hour, DeliveryLimit: 5})
	rs := runState{runID: run, share: share}
	m := newShareMember(runDeps{shared: sh, runState: rs}, 0)
	m.client, err = kgo.NewClient(append(kclient.ShareConsumerOpts(cfg, m.onAck), seeds, kgo.FetchMaxWait(100*time.Millisecond))...)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	defer m.client.Close()
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	wg.Go(func() { m.run(runCtx) })

	producer, err := kgo.NewClient(seeds, kgo.DefaultProduceTopic(topic), kgo.TransactionalID("sm-tx"))
	if err != nil {
		t.Fatal(err)
	}
	defer producer.Close()
	seq := uint64(0)
	commit := func(n int) {
		t.Helper()
		if err := producer.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		for range n {
			v := make([]byte, payload.HeaderSize)
			payload.Encode(v, payload.Header{RunID: run, Partition: 0, Seq: seq})
			share.Acked(0, seq, sh.clk.now())
			seq++
			if err := producer.ProduceSync(ctx, &kgo.Record{Value: v}).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
		if err := producer.EndTransaction(ctx, kgo.TryCommit); err != nil {
			t.Fatal(err)
		}
	}
	accepted := func(want uint64) {
		t.Helper()
		testwait.Until(t, 30*time.Second, 10*time.Millisecond, fmt.Sprintf("%d accepts confirmed", want), func() (bool, string) {
			got := sink.acked(tracker.Accept)
			return got >= want, fmt.Sprintf("%d confirmed", got)
		})
	}
	commit(3)
	accepted(3)
	// Every acknowledgement sent is answered.
	stop()
	wg.Wait()
	if err := m.client.FlushAcks(ctx); err != nil {
		t.Fatal(err)
	}

	m.mu.Lock()
	strays, unmatched := m.strays, m.unmatched
	m.mu.Unlock()
	if strays != 0 || unmatched {
		t.Errorf("%d answers matched no set of the member's (unmatched %v), want every answer its set's", strays, unmatched)
	}
	if got := sink.acked(tracker.Accept); got != 3 {
		t.Errorf("%d accepts confirmed, want 3", got)
	}
	if n := share.Held(); n != 0 {
		t.Errorf("%d records held, want every one accepted", n)
	}
}
