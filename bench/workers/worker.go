// Package workers runs one sweep of a bench file in several processes at
// once: each worker's part of it (a Worker is a run.Part, its sweep a
// run.Sweep), the results topic they publish to, and "bench merge", which
// adds their results up.
package workers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/bench/result"
	"github.com/kafka-bench/kafka_bench_exporter/bench/run"
	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/kclient"
)

// DefaultResultsTopic is where workers publish their results (--results.topic).
const DefaultResultsTopic = "kafka-bench-results"

// slotSlack is added to each fixed-duration scenario's slot in a worker
// sweep, beyond duration and drain_timeout: topic creation, warm-up and
// clean-up all happen inside the slot.
const slotSlack = 30 * time.Second

// Worker makes the runner one of several bench processes of one sweep
// (--workers): it runs its part of every scenario on the scenario's topic
// and publishes each result to the results topic for "bench merge". The
// workers agree through their flags and Kafka alone.
type Worker struct {
	Workers, Index int
	// StartAt is when the first scenario starts on every worker; each
	// later fixed-duration scenario starts a whole slot after it.
	StartAt time.Time
	// SweepName names the sweep (--run): the results' key and part of the
	// topic names.
	SweepName    string
	ResultsTopic string
}

// A Worker is the runner's part of the bench, its sweep the runner's
// sweep.
var (
	_ run.Part  = (*Worker)(nil)
	_ run.Sweep = (*workerSweep)(nil)
)

// Begin refuses what the workers cannot split and returns this worker's
// part of b and the sweep id of its topics and groups.
func (w *Worker) Begin(b *spec.Bench) (*spec.Bench, string, error) {
	if err := w.Check(b); err != nil {
		return nil, "", err
	}
	return w.part(b), w.sweepID(), nil
}

// Check refuses what a sweep cannot split; errors name the flag and value.
func (w *Worker) Check(b *spec.Bench) error {
	switch {
	case w.Workers < 1:
		return fmt.Errorf("--workers=%d: must be at least 1", w.Workers)
	case w.Index < 0 || w.Index >= w.Workers:
		return fmt.Errorf("--worker-index=%d: must be below --workers=%d", w.Index, w.Workers)
	case w.Workers == 1:
		return nil
	case w.StartAt.IsZero():
		return fmt.Errorf("--workers=%d: needs --start-at, the sweep's common start", w.Workers)
	case w.SweepName == "":
		return fmt.Errorf("--workers=%d: needs --run", w.Workers)
	case w.ResultsTopic == "":
		return fmt.Errorf("--workers=%d: --results.topic is empty", w.Workers)
	case b.FindMaxRate:
		return fmt.Errorf("--workers=%d: find_max_rate ramps one process's rate: run it with one worker", w.Workers)
	case b.ConsumeOnly:
		return fmt.Errorf("--workers=%d: consume_only reads a pre-filled topic: run it with one worker", w.Workers)
	case b.Rounds > 1:
		return fmt.Errorf("--workers=%d: rounds = %d: run each round as its own sweep", w.Workers, b.Rounds)
	case b.NumRecords > 0 && b.NumRecords < int64(w.Workers):
		return fmt.Errorf("--workers=%d: num_records = %d: fewer records than workers", w.Workers, b.NumRecords)
	}
	for _, s := range b.Scenarios {
		if err := checkRateSplit(s.Name, s.Probe.Rate, w.Workers); err != nil {
			return err
		}
	}
	return nil
}

// part is b with this worker's part of num_records, and with the
// worker's index after each transactional.id: workers on one host would
// otherwise fence each other's producers.
func (w *Worker) part(b *spec.Bench) *spec.Bench {
	c := *b
	if c.NumRecords > 0 {
		c.NumRecords = partOf(b.NumRecords, w.Workers, w.Index)
	}
	if w.Workers > 1 {
		c.Scenarios = slices.Clone(b.Scenarios)
		for i := range c.Scenarios {
			if p := &c.Scenarios[i].Probe.Producer; p.Transactional() {
				p.TransactionalID += "-w" + strconv.Itoa(w.Index)
			}
		}
	}
	return &c
}

// scenarioStart is when the seq-th run starts: fixed-duration runs each get
// a slot long enough for topic, warm-up, duration and drain, so every worker
// measures the same wall-clock window; num_records runs all start at once
// from StartAt and later ones follow their predecessor.
func (w *Worker) scenarioStart(b *spec.Bench, seq int) time.Time {
	if b.Duration == 0 {
		if seq == 0 {
			return w.StartAt
		}
		return time.Time{}
	}
	slot := b.Duration + b.DrainTimeout + slotSlack
	return w.StartAt.Add(time.Duration(seq) * slot)
}

// workerSweep is a Worker at work in a sweep: its results client and what
// it publishes.
type workerSweep struct {
	*Worker
	kafka  config.Cluster
	creds  *kclient.CredentialPool
	cl     *kgo.Client
	adm    *kadm.Client
	runs   int
	logger *slog.Logger
}

// Start connects the results client and makes sure the results topic
// exists; the sweep's Close closes the client.
func (w *Worker) Start(ctx context.Context, k config.Cluster, creds *kclient.CredentialPool, runs int, logger *slog.Logger) (run.Sweep, error) {
	cl, err := run.NewAdminClient(k, creds)
	if err != nil {
		return nil, err
	}
	ws := &workerSweep{Worker: w, kafka: k, creds: creds, cl: cl, adm: kadm.NewClient(cl), runs: runs,
		logger: logger.With("worker", w.Index, "workers", w.Workers, "run", w.SweepName)}
	if err := ensureResultsTopic(ctx, ws.adm, w.ResultsTopic); err != nil {
		cl.Close()
		return nil, err
	}
	return ws, nil
}

// Close closes the results client.
func (ws *workerSweep) Close() { ws.cl.Close() }

// Scenario gives the probe this worker's part of the rate and says when
// the seq-th run starts on every worker. The workers' consumers share the
// scenario's one group, so each record is read once over the sweep; the
// merge counts loss and duplicates (result.Accounting).
func (ws *workerSweep) Scenario(b *spec.Bench, seq int, p *config.Probe) (time.Time, *result.WorkerInfo) {
	p.Rate = ratePartOf(p.Rate, ws.Workers, ws.Index)
	slot := ws.scenarioStart(b, seq)
	return slot, ws.info(b, seq, slot, 0)
}

// Prepare makes the scenario's topic ready: worker 0 creates it, the other workers wait until it exists with every partition
// led.
func (ws *workerSweep) Prepare(ctx context.Context, adm *kadm.Client, b *spec.Bench, p *config.Probe, start time.Time) error {
	if !p.CreateTopic.Enabled {
		return run.PrepareTopic(ctx, adm, b, p)
	}
	if ws.Index == 0 {
		if err := run.PrepareTopic(ctx, adm, b, p); err != nil || !p.Consumer.Enabled {
			return err
		}
		// The shared group starts at the end of the new topic before any
		// worker produces, so no worker's consumer, joining at its own
		// moment, skips another's first records.
		if err := kclient.CommitEnds(ctx, adm, p.Topic, p.Consumer.GroupID, nil); err != nil {
			// Each probe sets the start offsets it finds unset, too.
			ws.logger.Warn("setting the shared group's start offsets failed", "err", err)
		}
		return nil
	}
	p.CreateTopic.Enabled = false
	deadline := max(time.Until(start), 0) + run.TopicTimeout
	ctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	if _, err := kclient.WaitTopic(ctx, adm, p.Topic, kclient.Led); err != nil {
		return fmt.Errorf("topic %q: not created by worker 0 within %s of the scenario's start (last error: %w)", p.Topic, run.TopicTimeout, err)
	}
	return nil
}

// WaitStart sleeps until the scenario's start and returns how late the
// worker is (0 when on time or when the sweep has no fixed start).
func (ws *workerSweep) WaitStart(ctx context.Context, start time.Time, name string) (time.Duration, error) {
	if start.IsZero() {
		return 0, nil
	}
	if late := time.Since(start); late > 0 {
		if late > result.LateTolerance {
			ws.logger.Warn("worker started the scenario late: its window is not the others'", "scenario", name, "late_by", late)
		}
		return late, nil
	}
	t := time.NewTimer(time.Until(start))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return 0, run.ErrInterrupted
	case <-t.C:
		return 0, nil
	}
}

// info is the WorkerInfo of the seq-th run.
func (ws *workerSweep) info(b *spec.Bench, seq int, start time.Time, late time.Duration) *result.WorkerInfo {
	return &result.WorkerInfo{SweepName: ws.SweepName, Index: ws.Index, Workers: ws.Workers, Seq: seq, Runs: ws.runs,
		StartAt: start, SweepStart: ws.StartAt, LateBy: late, ParamKeys: b.ParamKeys}
}

// DeletesTopic says at clean-up time whether this process deletes the
// seq-th run's topic: worker 0 does once the other workers are done with
// it; the others never do.
func (ws *workerSweep) DeletesTopic(b *spec.Bench, seq int) bool {
	if ws.Index != 0 {
		return false
	}
	ws.awaitOthers(seq, b.DrainTimeout+run.StallSlack)
	return true
}

// Publish publishes r for "bench merge"; a result that cannot be
// published fails, as the merge will miss it.
func (ws *workerSweep) Publish(ctx context.Context, paramKeys []string, r *result.Result) {
	if err := ws.publish(ctx, paramKeys, *r); err != nil {
		ws.logger.Error("publishing the result failed", "err", err)
		r.Err = strings.TrimPrefix(r.Err+"; "+err.Error(), "; ")
	}
}

// sweepID is SweepName made fit for topic and group names (RFC 3339 times
// hold colons, which topic names may not).
func (w *Worker) sweepID() string {
	return strings.Map(func(c rune) rune {
		if c == '.' || c == '_' || c == '-' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') {
			return c
		}
		return '-'
	}, w.SweepName)
}

// awaitOthers waits until every other worker has published its result of
// the seq-th run (so worker 0 deletes the topic only once all are done),
// for at most limit.
func (ws *workerSweep) awaitOthers(seq int, limit time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	got, err := collect(ctx, ws.creds, ws.kafka, ws.ResultsTopic, ws.SweepName, ws.StartAt, func(c *collected) bool {
		for i := 1; i < ws.Workers; i++ {
			if _, ok := c.byWorker[i][seq]; !ok {
				return false
			}
		}
		return true
	})
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		ws.logger.Warn("reading the other workers' results failed", "err", err)
	}
	for _, s := range got.stale {
		ws.logger.Info("ignoring a result of an earlier sweep of the same --run", "result", s)
	}
	for i := 1; i < ws.Workers; i++ {
		if _, ok := got.byWorker[i][seq]; !ok {
			ws.logger.Warn("deleting the topic without a result from a worker", "missing_worker", i, "waited", limit)
		}
	}
}
