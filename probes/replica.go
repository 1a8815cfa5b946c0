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
	"github.com/kafka-bench/kafka_bench_exporter/probes/payload"
	"github.com/kafka-bench/kafka_bench_exporter/probes/tracker"
)

// replica is a probe's cross-cluster canary: it reads the probe's records
// from the cluster a replicator copies the topic to and measures the link.
// The producer and the probe's own consumer are untouched, so the source
// cluster's metrics and the link's stay apart. Acknowledgements reach it
// through the probe's Recorder (replicaRecorder), so loss across the link
// is counted by the same tracker rules as on the source: only records the
// source acknowledged, each once.
type replica struct {
	cfg    config.Probe
	rcfg   config.Replica
	topic  string // the copy's name on the target
	link   string
	opts   Options
	m      *linkMetrics
	logger *slog.Logger
	errs   *errLog
	cur    atomic.Pointer[replicaRun]
}

// replicaRun is the state of one run of the probe (a recreated source topic
// starts a new run with a new run id).
type replicaRun struct {
	runID   uint64
	tracker *tracker.Tracker
	// anchor maps the records' wall-clock intended times onto the
	// monotonic clock: the records are this process's own, so their
	// latency is immune to wall-clock steps after the run started.
	anchor     time.Time
	anchorWall int64
	// reasons already logged for loss in this run.
	mu     sync.Mutex
	logged map[string]bool
	read   atomic.Bool // a record of this run was read from the target
}

// newReplica returns nil when the probe has no replica block.
func newReplica(cfg config.Probe, opts Options, logger *slog.Logger) *replica {
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
		m:      opts.Metrics.replication.forLink(cfg.Name, link),
		logger: logger,
		errs:   newErrLog(logger),
	}
}

// recorder chains the replica in front of next, so it hears of every
// acknowledgement; without a replica next is returned unchanged.
func (r *replica) recorder(next Recorder) Recorder {
	if r == nil {
		return next
	}
	return replicaRecorder{r: r, next: next}
}

type replicaRecorder struct {
	r    *replica
	next Recorder
}

func (rr replicaRecorder) Produced(latency time.Duration, bytes int, id RecordID) {
	if run := rr.r.cur.Load(); run != nil && id.Run == run.runID {
		run.tracker.Acked(id.Partition, id.Seq, time.Now())
	}
	if rr.next != nil {
		rr.next.Produced(latency, bytes, id)
	}
}

func (rr replicaRecorder) Failed(reason string, n int) {
	if rr.next != nil {
		rr.next.Failed(reason, n)
	}
}

func (rr replicaRecorder) Consumed(e2e time.Duration, bytes int, own bool, id RecordID) {
	if rr.next != nil {
		rr.next.Consumed(e2e, bytes, own, id)
	}
}

// start begins reading run runID from the target before the producer
// starts; the returned func stops the reader. A nil replica does nothing.
func (r *replica) start(ctx context.Context, runID uint64) (stop func(), err error) {
	if r == nil {
		return func() {}, nil
	}
	now := time.Now()
	run := &replicaRun{
		runID: runID,
		tracker: tracker.New(runID, tracker.Config{
			GracePeriod: time.Duration(r.rcfg.LossGracePeriod),
			LoseUnread:  true,
		}),
		anchor:     now,
		anchorWall: now.UnixNano(),
		logged:     map[string]bool{},
	}
	admin, err := kclient.New(r.rcfg.Kafka, kclient.Options{Logger: r.logger,
		Labels: kclient.Labels{Probe: r.cfg.Name, Role: kclient.RoleReplica, Member: "admin"}, Probing: true,
		Credentials: r.opts.Credentials})
	if err != nil {
		return nil, fmt.Errorf("probe %q: %s admin client: %w", r.cfg.Name, kclient.RoleReplica, err)
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
// func stops it. It starts a second before the run: the record timestamps
// are the producer's send times, at or after the run's start.
func (r *replica) startReader(ctx context.Context, run *replicaRun) (stop func(), err error) {
	cl, err := kclient.New(r.rcfg.Kafka, kclient.Options{Logger: r.logger, Registerer: r.opts.Registerer,
		Labels: kclient.Labels{Probe: r.cfg.Name, Role: kclient.RoleReplica, Member: "0"}, Probing: true,
		Credentials: r.opts.Credentials},
		kclient.ReplicaOpts(r.cfg, r.topic, run.anchor.Add(-time.Second))...)
	if err != nil {
		return nil, fmt.Errorf("probe %q: %s client: %w", r.cfg.Name, kclient.RoleReplica, err)
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
		r.process(fetches, run, time.Now())
	}
}

// process accounts one poll's records; now is when they were received.
func (r *replica) process(fetches kgo.Fetches, run *replicaRun, now time.Time) {
	fetches.EachRecord(func(rec *kgo.Record) {
		h, err := payload.Decode(rec.Value)
		// Replicators keep the partition (MirrorMaker 2 does); a record
		// that moved cannot be placed in its partition's sequence.
		if err != nil || h.Partition != rec.Partition {
			return
		}
		if h.RunID == run.runID {
			intended := run.anchor.Add(time.Duration(h.Intended - run.anchorWall))
			r.m.latency.Observe(max(now.Sub(intended), 0).Seconds())
			r.m.consumed.Inc()
			run.read.Store(true)
		}
		switch run.tracker.Observe(rec.Partition, h.RunID, h.Seq, now) {
		case tracker.Duplicate:
			r.m.duplicated.Inc()
		case tracker.OutOfOrder:
			r.m.outOfOrder.Inc()
		}
	})
}

// watch runs every lag_interval: the replica topic's identity (a recreated
// copy gets a new reader: a client keeps failing on the old topic id), loss
// declared by the tracker, and the lag of the target behind the source's
// acknowledgements. It stops the reader when ctx ends.
func (r *replica) watch(ctx context.Context, adm *kadm.Client, run *replicaRun, stopReader func()) {
	defer func() { stopReader() }()
	t := time.NewTicker(time.Duration(r.cfg.LagInterval))
	defer t.Stop()
	var topicID [16]byte
	var recreatedAt time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := time.Now()
		missing := false
		dctx, cancel := context.WithTimeout(ctx, time.Duration(r.cfg.LagInterval))
		td, err := kclient.DescribeTopic(dctx, adm, r.topic)
		cancel()
		switch {
		case errors.Is(err, kerr.UnknownTopicOrPartition):
			missing = true
		case err != nil:
		case topicID == [16]byte{}:
			topicID = td.ID
		case td.ID != topicID:
			topicID, recreatedAt = td.ID, now
			r.logger.Warn("the replica topic was recreated; restarting the replica reader", "replica_topic", r.topic)
			stopReader()
			if next, err := r.startReader(ctx, run); err == nil {
				stopReader = next
			} else {
				stopReader = func() {}
				r.logger.Error("restarting the replica reader failed", "err", err)
			}
		}
		if lost := run.tracker.Expire(now); lost > 0 {
			r.m.lost.Add(float64(lost))
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
		r.m.setLag(float64(n), lag)
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
