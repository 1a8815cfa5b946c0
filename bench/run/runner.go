// Package run runs a bench: its scenarios one after another, each through
// topic, configurations, probe, measurement and clean-up.
package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kafka-bench/kafka_bench_exporter/bench/brokercfg"
	"github.com/kafka-bench/kafka_bench_exporter/bench/hostwatch"
	"github.com/kafka-bench/kafka_bench_exporter/bench/lines"
	"github.com/kafka-bench/kafka_bench_exporter/bench/result"
	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/kclient"
	"github.com/kafka-bench/kafka_bench_exporter/probes"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
)

const (
	// pollInterval is how often the runner looks at the counters; it only
	// bounds how late the end of a scenario is noticed, never a measurement
	// (those come from the records' own timestamps).
	pollInterval = 20 * time.Millisecond
	// TopicTimeout bounds one admin wait around a topic: a scenario's topic
	// getting a leader on every partition, and in a sweep, worker 0
	// creating it and each request on the results topic.
	TopicTimeout   = 30 * time.Second
	cleanupTimeout = 15 * time.Second
	// DefaultProgressInterval is ProducerPerformance's reporting interval.
	DefaultProgressInterval = 5 * time.Second
)

// ErrInterrupted ends a scenario when the bench is stopped (SIGINT).
var ErrInterrupted = errors.New("interrupted")

// Runner runs a bench's scenarios one after another.
type Runner struct {
	// Sinks hear of the probes' events besides the runner's own recorder
	// (the metrics and the landing page served while the bench runs); the
	// runner takes every figure from its recorder, never from them.
	Sinks []event.Sink
	// Registerer receives the Kafka client metrics; nil leaves them out.
	Registerer prometheus.Registerer
	Logger     *slog.Logger
	// Progress receives the progress lines (stderr); nil prints none.
	Progress         io.Writer
	ProgressInterval time.Duration
	// HostInterval is how often the hosts are scraped within a scenario;
	// 0 is hostwatch.DefaultInterval.
	HostInterval time.Duration
	// HostsRequired fails a scenario in which a host could not be measured
	// (--hosts-required); otherwise its row says unreachable.
	HostsRequired bool
	// SweepID makes the generated topics and groups unique to this sweep;
	// empty picks one from the clock.
	SweepID string
	// OnResult is called after each scenario (to print its lines at once).
	OnResult func(result.Result)
	// Seed shuffles the scenario order of each round (schedule.go).
	Seed uint64
	// Part is this process's part of the bench: nil is Alone, the whole
	// bench; package workers makes it one worker of several.
	Part Part
	// Credentials are shared by every Kafka client of the bench (admin,
	// probes, capacity ramps, the results topic's): one OAuth token for
	// all. Nil: Run makes a pool of its own.
	Credentials *kclient.CredentialPool
}

// Run runs every scenario, once per round, and returns their results. It
// stops early, with ctx.Err(), when ctx is cancelled; the scenario under way
// ends cleanly (its clients closed, its configurations restored, its topic
// deleted) and is reported failed. Broker settings the bench cannot change
// and restore are refused before anything runs; a restore that fails stops
// the bench with the commands that would do it.
func (r *Runner) Run(ctx context.Context, b *spec.Bench) (_ []result.Result, err error) {
	if r.Logger == nil {
		r.Logger = slog.New(slog.DiscardHandler)
	}
	if r.HostInterval <= 0 {
		r.HostInterval = hostwatch.DefaultInterval
	}
	if r.ProgressInterval <= 0 {
		r.ProgressInterval = DefaultProgressInterval
	}
	part := r.Part
	if part == nil {
		part = Alone{}
	}
	b, sweepID, err := part.Begin(b)
	if err != nil {
		return nil, err
	}
	if sweepID != "" {
		r.SweepID = sweepID
	}
	if r.SweepID == "" {
		r.SweepID = strconv.FormatInt(time.Now().UnixNano(), 36)
	}
	if r.Credentials == nil {
		r.Credentials = kclient.NewCredentialPool(nil, r.Logger)
	}
	hosts := []*hostwatch.Source{hostwatch.OwnSource(r.Logger)}
	for _, h := range b.Hosts {
		hc, err := h.Client(hostwatch.ScrapeTimeout)
		if err != nil {
			return nil, err
		}
		hosts = append(hosts, hostwatch.NewSource(h, hc))
	}
	cl, err := NewAdminClient(b.Kafka, r.Credentials)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	var cc *brokercfg.Changer
	if brokercfg.HasSettings(b) {
		if cc, err = brokercfg.New(ctx, cl, b.Kafka.Kafka, r.Logger); err != nil {
			return nil, err
		}
		if err := cc.Check(ctx, b); err != nil {
			return nil, err
		}
		defer func() { err = errors.Join(err, cc.RestoreAll()) }() // what a scenario left, and the static settings
	}

	runs := schedule(len(b.Scenarios), b.Rounds, r.Seed)
	sweep, err := part.Start(ctx, b.Kafka, r.Credentials, len(runs), r.Logger)
	if err != nil {
		return nil, err
	}
	defer sweep.Close()
	prog := &progress{out: lines.New(r.Progress), interval: r.ProgressInterval, total: len(runs)}
	defer func() {
		// The bench outlives a broken progress stream; it is said once.
		if prog.out.Err() != nil {
			r.Logger.Warn("progress lines stopped", "err", prog.out.Err())
		}
	}()
	var results []result.Result
	for i, run := range runs {
		if ctx.Err() != nil {
			break
		}
		res, restoreErr := r.scenario(ctx, sweep, adm, cc, b, i, run, prog, hosts)
		sweep.Publish(ctx, b.ParamKeys, &res)
		results = append(results, res)
		if r.OnResult != nil {
			r.OnResult(res)
		}
		if restoreErr != nil {
			return results, restoreErr
		}
	}
	return results, ctx.Err()
}

// scenario runs one scenario: topic, configurations, probe, produce, drain,
// restore, clean up. restoreErr says the cluster could not be put back.
func (r *Runner) scenario(ctx context.Context, sweep Sweep, adm *kadm.Client, cc *brokercfg.Changer, b *spec.Bench, i int, run scheduled, prog *progress, hosts []*hostwatch.Source) (res result.Result, restoreErr error) {
	s := b.Scenarios[run.scenario]
	p := r.probeOf(b, s, run)
	slot, worker := sweep.Scenario(b, i, &p) // slot: the run's common start of several workers
	res = result.Result{Scenario: s.Name, Params: s.Params, Topic: p.Topic, Round: run.round, Worker: worker}
	if b.Rounds > 1 {
		res.Params = append(slices.Clone(s.Params), strconv.Itoa(run.round))
	}
	logger := r.Logger.With("scenario", s.DisplayName(), "round", run.round)
	if b.DeleteTopics {
		defer r.cleanup(adm, s, p, logger, func() bool { return sweep.DeletesTopic(b, i) })
	}
	if err := sweep.Prepare(ctx, adm, b, &p, slot); err != nil {
		res.Err = err.Error()
		return res, nil
	}
	if len(s.Configs) > 0 {
		defer func() { restoreErr = errors.Join(restoreErr, cc.Restore()) }() // before the topic is deleted
		if err := cc.Apply(ctx, s.Configs, p.Topic); err != nil {
			res.Err = "applying the scenario's configurations: " + err.Error()
			logger.Error("scenario failed", "err", res.Err)
			if _, ok := errors.AsType[*brokercfg.RestartError](err); ok {
				return res, err // a broker restart failed: the sweep stops
			}
			return res, nil
		}
	}
	if b.FindMaxRate {
		return r.findMaxRate(ctx, b, p, s.Payload, res, hosts, logger), nil
	}
	late, err := sweep.WaitStart(ctx, slot, s.DisplayName())
	if res.Worker != nil {
		res.Worker.LateBy = late
	}
	if err != nil {
		res.Err = err.Error()
		return res, nil
	}
	pageCache, err := r.beforeRead(ctx, adm, b, p, logger) // coldcache.go
	if err != nil {
		res.Err = err.Error()
		return res, nil
	}
	shown := s
	shown.Name = runName(s, run.round, b.Rounds)
	r.measure(ctx, sweep, b, i, shown, p, prog, hosts, logger, &res)
	if res.Consume != nil {
		res.Consume.PageCache = pageCache
	}
	return res, nil
}

// probeOf is the scenario's probe in this run. Generated names get the
// sweep id: a topic deleted at the end of the last sweep and created again at
// once can still be half-deleted in the brokers, and a new group reads its
// topic afresh.
func (r *Runner) probeOf(b *spec.Bench, s spec.Scenario, run scheduled) config.Probe {
	p := s.Probe
	if s.OwnTopic {
		p.Topic += "-" + r.SweepID
		if b.Rounds > 1 {
			p.Topic += "-r" + strconv.Itoa(run.round)
		}
	}
	if s.OwnGroup {
		p.Consumer.GroupID = p.Topic
		if !s.OwnTopic {
			p.Consumer.GroupID += "-" + r.SweepID
			if b.Rounds > 1 {
				p.Consumer.GroupID += "-r" + strconv.Itoa(run.round)
			}
		}
	}
	return p
}

// measure runs the seq-th run's probe, drives it through its phases while
// the hosts are watched, and fills res with what the recorder measured.
func (r *Runner) measure(ctx context.Context, records Records, b *spec.Bench, seq int, s spec.Scenario, p config.Probe, prog *progress, hosts []*hostwatch.Source, logger *slog.Logger, res *result.Result) {
	var limit uint64 // records to produce, or to read consume-only
	if b.NumRecords > 0 {
		limit = uint64(b.WarmupRecords + b.NumRecords)
	}
	var rec *Recorder
	if b.ConsumeOnly {
		rec = NewRecorder(b.WarmupRecords, true, int64(limit))
		limit = 0
	} else {
		rec = NewRecorder(b.WarmupRecords, false, 0)
	}
	opts := probes.Options{
		Kafka:       b.Kafka,
		Payload:     s.Payload,
		Sinks:       append([]event.Sink{rec}, r.Sinks...),
		Registerer:  r.Registerer,
		Logger:      r.Logger,
		Credentials: r.Credentials,
		Bench:       probes.BenchOptions{NumRecords: limit, ConsumeOnly: b.ConsumeOnly},
	}
	records.ProbeRuns(&opts.Bench, seq)
	probe := probes.New(p, opts)
	host := hostwatch.Start(ctx, hosts, r.HostInterval)
	start := probe.Now() // the recorder's times are on the probe's clock
	// The probe gets its own context: on SIGINT the runner still stops it
	// in order (flush, commit, leave the group) before deleting its topic.
	runCtx, stopProbe := context.WithCancel(context.Background())
	defer stopProbe()
	exited := make(chan struct{})
	var runErr error
	go func() {
		defer close(exited)
		runErr = probe.Run(runCtx)
	}()

	d := &driver{b: b, probe: probe, rec: rec, label: p.Name, ctx: ctx,
		deliveryTimeout: time.Duration(p.Producer.DeliveryTimeoutMS) * time.Millisecond,
		exited:          exited, runErr: func() error { return runErr }, group: records.Drain(seq, p)}
	stopProgress := prog.watch(seq, s, b, rec)
	err := d.run(p.Consumer.Enabled)
	stopProgress()
	res.Hosts = host.Stop(context.Background())
	if herr := r.unreachable(res.Hosts, logger); herr != nil && err == nil {
		err = herr
	}
	stopProbe()
	<-exited

	r.fill(b, p, rec, start, res)
	if err != nil {
		res.Err = err.Error()
		logger.Error("scenario failed", "err", err)
	}
}

// fill puts the recorder's figures into res.
func (r *Runner) fill(b *spec.Bench, p config.Probe, rec *Recorder, start time.Time, res *result.Result) {
	res.Host = hostwatch.OwnStats(res.Hosts[0])
	if !b.ConsumeOnly {
		span := rec.ProduceSpan()
		res.Produce = &result.ProduceResult{Records: span.Records, Bytes: span.Bytes, Failed: rec.FailedTotal(),
			NotCommitted: rec.NotCommittedTotal(), Elapsed: span.Last.Sub(span.First), First: span.First, Last: span.Last, Latency: span.Latency}
	}
	res.Accounting = rec.Accounting()
	if p.Consumer.Enabled {
		res.Consume = consumeResult(rec, start, !b.ConsumeOnly)
		if !b.ConsumeOnly {
			res.Consume.Lost, res.Consume.Duplicates = result.Tally([]*result.Accounting{res.Accounting})
		}
	}
}

// unreachable logs the hosts that could not be measured; with
// HostsRequired they fail the scenario.
func (r *Runner) unreachable(rows []result.HostRow, logger *slog.Logger) error {
	var errs []error
	for _, h := range rows {
		if h.Unreachable() {
			logger.Warn("host unreachable", "host", h.Name, "url", h.URL, "err", h.Err)
			errs = append(errs, fmt.Errorf("host %q unreachable: %s", h.Name, h.Err))
		}
	}
	if !r.HostsRequired {
		return nil
	}
	return errors.Join(errs...)
}

func consumeResult(rec *Recorder, start time.Time, own bool) *result.ConsumeResult {
	span, warmEnd := rec.ConsumeSpan()
	if !warmEnd.IsZero() {
		start = warmEnd // warm-up records are not measured
	}
	c := &result.ConsumeResult{Start: start, End: start, Records: span.Records, Bytes: span.Bytes}
	if span.Records > 0 {
		c.End = span.Last
		c.Rebalance = max(span.First.Sub(start), 0)
	}
	if own {
		lat := span.Latency
		c.EndToEnd = &lat
	}
	c.Rebalances, c.RebalanceP99 = rec.Rebalances()
	return c
}

// PrepareTopic creates the scenario's topic and waits until every partition
// has a leader, so that neither tool's first records wait for an election;
// a consume-only scenario checks that its topic exists instead.
func PrepareTopic(ctx context.Context, adm *kadm.Client, b *spec.Bench, p *config.Probe) error {
	ctx, cancel := context.WithTimeout(ctx, TopicTimeout)
	defer cancel()
	if b.ConsumeOnly {
		// Reading a pre-filled topic: never create it.
		p.CreateTopic.Enabled = false
		_, err := kclient.DescribeTopic(ctx, adm, p.Topic)
		if errors.Is(err, kerr.UnknownTopicOrPartition) {
			return fmt.Errorf("topic %q does not exist: consume_only reads a pre-filled topic", p.Topic)
		}
		return err
	}
	if !p.CreateTopic.Enabled {
		return nil // the probe checks and uses the topic as it is
	}
	created, err := kclient.CreateTopic(ctx, adm, p.Topic, p.CreateTopic)
	if err != nil {
		return err
	}
	want := p.CreateTopic.Partitions
	if !created {
		want = 1 // kept from an earlier run: the probe uses it as it is
	}
	_, err = kclient.WaitTopic(ctx, adm, p.Topic, func(td kadm.TopicDetail) bool {
		return int32(len(td.Partitions)) >= want && kclient.Led(td)
	})
	if err != nil {
		return fmt.Errorf("topic %q: partitions without a leader after %s (last error: %w)", p.Topic, TopicTimeout, err)
	}
	return nil
}

// cleanup deletes what the bench created for the scenario: its group and
// its topic. A topic named in the bench file is left alone, and so are the
// group and topic another worker deletes (owner false).
func (r *Runner) cleanup(adm *kadm.Client, s spec.Scenario, p config.Probe, logger *slog.Logger, owner func() bool) {
	deleteTopic := owner() // worker 0 of several waits here for the others
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	if s.OwnGroup && p.Consumer.Enabled && deleteTopic {
		if _, err := adm.DeleteGroup(ctx, p.Consumer.GroupID); err != nil && !errors.Is(err, kerr.GroupIDNotFound) {
			logger.Warn("deleting the bench consumer group failed", "group", p.Consumer.GroupID, "err", err)
		}
	}
	if s.OwnTopic && deleteTopic {
		if _, err := adm.DeleteTopic(ctx, p.Topic); err != nil && !errors.Is(err, kerr.UnknownTopicOrPartition) {
			logger.Warn("deleting the bench topic failed", "topic", p.Topic, "err", err)
		}
	}
}
