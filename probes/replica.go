package probes

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/kclient"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
	"github.com/kafka-bench/kafka_bench_exporter/probes/payload"
	"github.com/kafka-bench/kafka_bench_exporter/probes/tracker"
)

// replica is a probe's cross-cluster canary: it reads the probe's records
// from the cluster a replicator copies the topic to and measures the link.
// The producer and the probe's own consumer are untouched, so the source
// cluster's metrics and the link's stay apart. The producer tells it of
// every acknowledgement and failure (seqTrackers), so loss across the link
// is counted by the same tracker rules as on the source: only records the
// source acknowledged, each once, and no record that failed to produce.
type replica struct {
	cfg    config.Probe
	rcfg   config.Replica
	topic  string // the copy's name on the target
	link   string
	opts   Options
	ev     *event.Hooks
	logger *slog.Logger
	errs   *errLog
	cur    atomic.Pointer[replicaRun]
	// retried counts and logs the n-th failure in a row to build a client
	// and says when to try again (Probe.countClientFailure).
	retried func(client string, n int, err error) time.Duration
}

// replicaRun is the state of one run of the probe (a recreated source topic
// starts a new run with a new run id).
type replicaRun struct {
	runID   uint64
	tracker *tracker.Tracker
	// clk is the probe's steady clock: the records' intended times are
	// its readings, and every time of the run (reads, acknowledgements,
	// expiry) is read from it, so no wall-clock step moves a latency.
	clk clock
	// startWall is the wall clock at the run's start: where the reader
	// starts, by the record timestamps the brokers keep (the wall clock's).
	startWall time.Time
	// reasons already logged for loss in this run.
	mu     sync.Mutex
	logged map[string]bool
	read   atomic.Bool // a record of this run was read from the target
}

// newReplica returns nil when the probe has no replica block.
func newReplica(cfg config.Probe, opts Options, ev *event.Hooks, logger *slog.Logger) *replica {
	if cfg.Replica == nil {
		return nil
	}
	r := *cfg.Replica
	link := r.Link()
	logger = logger.With("link", link)
	return &replica{
		cfg:    cfg,
		rcfg:   r,
		topic:  r.TopicFor(cfg.Topic),
		link:   link,
		opts:   opts,
		ev:     ev,
		logger: logger,
		errs:   newErrLog(logger),
	}
}

// acked and wontArrive tell the current run's tracker that the source
// acknowledged record id, or will never have it (a failed produce).
func (r *replica) acked(id RecordID, now time.Time) {
	if run := r.run(id.Run); run != nil {
		run.tracker.Acked(id.Partition, id.Seq, now)
	}
}

func (r *replica) wontArrive(id RecordID, now time.Time) {
	r.wontArriveRange(id.Run, id.Partition, id.Seq, id.Seq+1, now)
}

// wontArriveRange: the producer of run gave up on [lo, hi) of partition.
func (r *replica) wontArriveRange(runID uint64, partition int32, lo, hi uint64, now time.Time) {
	if run := r.run(runID); run != nil {
		run.tracker.WillNotArrive(partition, lo, hi, now)
	}
}

// run is the current run if it is runID; nil without a replica.
func (r *replica) run(runID uint64) *replicaRun {
	if r == nil {
		return nil
	}
	if run := r.cur.Load(); run != nil && run.runID == runID {
		return run
	}
	return nil
}

// newRun is the state of run runID, on the probe's clock clk.
func (r *replica) newRun(runID uint64, clk clock) *replicaRun {
	return &replicaRun{
		runID: runID,
		tracker: tracker.New(runID, tracker.Config{
			GracePeriod: time.Duration(r.rcfg.LossGracePeriod),
			LoseUnread:  true,
		}),
		clk:       clk,
		startWall: clk.wall(),
		logged:    map[string]bool{},
	}
}

// start begins reading run runID from the target before the producer
// starts, on the probe's clock clk; the returned func stops the reader. A
// client that cannot be built is a *buildError (retried like the probe's
// other clients). A nil replica does nothing.
func (r *replica) start(ctx context.Context, runID uint64, clk clock) (stop func(), err error) {
	if r == nil {
		return func() {}, nil
	}
	run := r.newRun(runID, clk)
	admin, err := kclient.New(r.opts.Replica, kclient.Options{Logger: r.logger,
		Labels: kclient.Labels{Probe: r.cfg.Name, Role: kclient.RoleReplica, Member: "admin"}, Probing: true,
		Credentials: r.opts.Credentials})
	if err != nil {
		return nil, &buildError{ClientReplica, fmt.Errorf("probe %q: %s admin client: %w", r.cfg.Name, kclient.RoleReplica, err)}
	}
	stopReader, err := r.startReader(ctx, run)
	if err != nil {
		admin.Close()
		return nil, err
	}
	r.cur.Store(run)
	r.logger.Info("reading the probe topic's replica", "replica_topic", r.topic, "loss_grace_period", r.rcfg.LossGracePeriod)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.watch(ctx, kadm.NewClient(admin), run, stopReader)
	}()
	return func() {
		cancel()
		<-done
		admin.Close()
	}, nil
}

// startReader starts a reader client of run on the target; the returned
// func stops it; a client that cannot be built is a *buildError. It starts
// a second before the run: the record timestamps are the producer's send
// times, at or after the run's start.
func (r *replica) startReader(ctx context.Context, run *replicaRun) (stop func(), err error) {
	cl, err := kclient.New(r.opts.Replica, kclient.Options{Logger: r.logger, Registerer: r.opts.Registerer,
		Labels: kclient.Labels{Probe: r.cfg.Name, Role: kclient.RoleReplica, Member: "0"}, Probing: true,
		Credentials: r.opts.Credentials},
		kclient.ReplicaOpts(r.cfg, r.topic, run.startWall.Add(-time.Second))...)
	if err != nil {
		return nil, &buildError{ClientReplica, fmt.Errorf("probe %q: %s client: %w", r.cfg.Name, kclient.RoleReplica, err)}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.read(ctx, cl, run)
	}()
	return func() {
		cancel()
		<-done
		cl.Close()
	}, nil
}

// read polls the target until ctx ends.
func (r *replica) read(ctx context.Context, cl *kgo.Client, run *replicaRun) {
	for {
		fetches := cl.PollRecords(ctx, r.cfg.Consumer.MaxPollRecords)
		if fetches.IsClientClosed() || ctx.Err() != nil {
			return
		}
		fetches.EachError(func(_ string, partition int32, err error) {
			if !errors.Is(err, context.Canceled) {
				r.errs.warn("replica-fetch", "fetch from the replica failed", "replica_topic", r.topic, "partition", partition, "err", err)
			}
		})
		r.process(fetches, run, run.clk.now())
	}
}

// process accounts one poll's records; now is when they were received, on
// the run's clock.
func (r *replica) process(fetches kgo.Fetches, run *replicaRun, now time.Time) {
	fetches.EachRecord(func(rec *kgo.Record) {
		h, err := payload.Decode(rec.Value)
		// Replicators keep the partition (MirrorMaker 2 does); a record
		// that moved cannot be placed in its partition's sequence.
		if err != nil || h.Partition != rec.Partition {
			return
		}
		if h.RunID == run.runID {
			r.ev.ReplicaRead(since(h.Intended, now))
			run.read.Store(true)
		}
		switch run.tracker.Observe(rec.Partition, h.RunID, h.Seq, now) {
		case tracker.Duplicate:
			r.ev.ReplicaAnomaly(event.Duplicated, 1)
		case tracker.OutOfOrder:
			r.ev.ReplicaAnomaly(event.OutOfOrder, 1)
		}
	})
}

// watch runs every lag_interval: the replica topic's identity (a recreated
// copy gets a new reader: a client keeps failing on the old topic id), loss
// declared by the tracker, and the lag of the target behind the source's
// acknowledgements. It stops the reader when ctx ends.
func (r *replica) watch(ctx context.Context, adm *kadm.Client, run *replicaRun, stopReader func()) {
	defer func() {
		if stopReader != nil {
			stopReader()
		}
	}()
	down, retryAt := 0, time.Time{} // failures in a row to restart the reader; when to try again
	t := time.NewTicker(time.Duration(r.cfg.LagInterval))
	defer t.Stop()
	var topicID [16]byte
	var recreatedAt time.Time
	// missing is the last definite answer about the replica topic: a
	// describe that fails otherwise (a timeout) leaves it as it was, so the
	// loss reason does not change with a slow answer.
	missing := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := run.clk.now()
		dctx, cancel := context.WithTimeout(ctx, time.Duration(r.cfg.LagInterval))
		td, err := kclient.DescribeTopic(dctx, adm, r.topic)
		cancel()
		switch {
		case errors.Is(err, kerr.UnknownTopicOrPartition):
			missing = true
		case err != nil:
		default:
			missing = false
			switch {
			case topicID == [16]byte{}:
				topicID = td.ID
			case td.ID != topicID:
				topicID, recreatedAt = td.ID, now
				r.logger.Warn("the replica topic was recreated; restarting the replica reader", "replica_topic", r.topic)
				stopReader()
				stopReader, down, retryAt = nil, 0, now
			}
		}
		if stopReader == nil && !now.Before(retryAt) {
			// A reader that cannot be built is retried with the
			// backoff of the probe's other clients.
			next, err := r.startReader(ctx, run)
			if err == nil {
				stopReader = next
			} else {
				down++
				retryAt = now.Add(r.retried(ClientReplica, down, err))
			}
		}
		if lost := run.tracker.Expire(now); lost > 0 {
			r.ev.ReplicaAnomaly(event.Lost, lost)
			// Records gone with a recreated topic are declared lost
			// about a grace period after the recreation.
			recreated := !recreatedAt.IsZero() && now.Sub(recreatedAt) <= 2*time.Duration(r.rcfg.LossGracePeriod)
			r.logLoss(run, lost, missing, recreated)
		}
		n, oldest := run.tracker.Unread()
		lag := 0.0
		if !oldest.IsZero() {
			lag = max(now.Sub(oldest).Seconds(), 0)
		}
		r.ev.ReplicaLag(float64(n), lag)
	}
}

// logLoss logs, once per reason and run, why records were lost across the
// link: the counter says how many, the log line what to look at.
func (r *replica) logLoss(run *replicaRun, lost uint64, topicMissing, recreated bool) {
	reason := "records missing on the replica topic between records that were read"
	switch {
	case topicMissing:
		reason = "the replica topic does not exist on the target cluster: is the replicator running and does its topic filter include the probe topic?"
	case recreated:
		reason = "the replica topic was recreated: records copied into the old topic and not read are gone unless the replicator copies them again"
	case !run.read.Load():
		reason = "no record of this run was read from the replica topic: is the replicator running?"
	}
	run.mu.Lock()
	seen := run.logged[reason]
	run.logged[reason] = true
	run.mu.Unlock()
	if !seen {
		r.logger.Warn("records acknowledged by the source cluster were not read from the replica within the grace period; counted lost",
			"lost", lost, "reason", reason, "replica_topic", r.topic, "loss_grace_period", r.rcfg.LossGracePeriod)
	}
}
