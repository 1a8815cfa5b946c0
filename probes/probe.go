// Package probes is the probe engine: one Probe is a steady-state producer
// and consumer group on its own topic, measuring throughput, latency, loss,
// duplicates, reordering and lag, and reporting them as events to its sinks
// (package event; the Prometheus metrics are package promsink).
// The daemon and the one-shot bench mode both run it.
package probes

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/kclient"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
	"github.com/kafka-bench/kafka_bench_exporter/probes/payload"
)

// FlushTimeout bounds the flush of a stopping producer: SIGTERM must end
// the process within 10 s.
const FlushTimeout = 5 * time.Second

// Options are what a probe needs besides its configuration.
type Options struct {
	// Kafka is the probe's cluster, resolved (config.Resolved.Kafka).
	Kafka config.Cluster
	// Replica is the cluster of the probe's replica block, resolved
	// (config.ResolvedProbe.Replica); zero without one.
	Replica config.Cluster
	// Payload are the entries of the probe's payload file
	// (config.ResolvedProbe.Payload); nil for another payload kind.
	Payload [][]byte
	// Sinks hear of the probe's events (package event): the Prometheus
	// families (promsink.Metrics), a bench run's recorder.
	Sinks []event.Sink
	// Registerer receives the kprom client metrics; nil disables them.
	Registerer kclient.Registerer
	Logger     *slog.Logger
	// Credentials are shared by the probe's clients, its replica reader's
	// and the process's other clients of the same section (see
	// kclient.Options).
	Credentials *kclient.CredentialPool
	// RetryClients makes Run retry, with backoff, a client that cannot be
	// built, where it would return the error: the daemon keeps the probe
	// exported (probe_up 0, kafka_bench_probe_client_failed_total) until
	// it can; a one-shot bench run fails instead.
	RetryClients bool
	// Bench is what a one-shot bench run changes about the probe; the
	// daemon leaves it zero.
	Bench BenchOptions
}

// Probe is one running producer/consumer pair.
type Probe struct {
	// runDeps is the state the producer and the consumers share with the
	// probe, and the current run's (rundeps.go).
	runDeps
	opts Options

	admin       *kadm.Client
	adminClient *kgo.Client    // under admin
	topicID     [16]byte       // of the topic the clients were started on
	seenBrokers map[int32]bool // leaders.go: the brokers the last leader spread saw
	// describeClusterDenied: the cluster denied DescribeCluster
	// (leaders.go), so brokers are listed from the metadata.
	describeClusterDenied bool

	stopProduce chan struct{}
	stopOnce    sync.Once
	producer    atomic.Pointer[producer]
}

// New prepares a probe; Run starts it.
func New(cfg config.Probe, opts Options) *Probe {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	logger = logger.With("probe", cfg.Name)
	runID := opts.Bench.RunID
	if runID == 0 {
		runID = payload.NewRunID()
	}
	hooks := make([]event.Hook, 0, len(opts.Sinks))
	for _, s := range opts.Sinks {
		hooks = append(hooks, s.ForProbe(cfg))
	}
	ev := event.New(hooks...)
	rep := newReplica(cfg, opts, ev, logger)
	sh := &shared{
		cfg:          cfg,
		clk:          newClock(),
		workerRuns:   opts.Bench.WorkerRuns,
		ev:           ev,
		leaders:      &partitionLeaders{ev: ev},
		errs:         newErrLog(logger),
		logger:       logger,
		produceTimes: newProduceTimes(),
		positions:    newPositions(),
		replica:      rep,
		reb:          newRebalances(cfg, ev),
		payload:      opts.Payload,
	}
	if len(cfg.CatchUp) > 0 {
		sh.gone = newGoneLog()
	}
	sh.live = &liveness{cfg: cfg, partitions: &sh.partitions, report: ev.Up, logger: logger}
	p := &Probe{
		shared:      sh,
		runState:    newRunState(cfg, runID),
		opts:        opts,
		stopProduce: make(chan struct{}),
	}
	if rep != nil {
		rep.retried = p.countClientFailure
	}
	return p
}

// Name is the probe's name, its `probe` label.
func (p *Probe) Name() string { return p.cfg.Name }

// Config is the probe's effective configuration.
func (p *Probe) Config() config.Probe { return p.cfg }

// Ready is kafka_bench_probe_up: a record was acknowledged and (with a
// consumer) consumed within the up window. It turns true with the first
// such records, not at the next lag tick, so /-/ready and probe_up agree.
func (p *Probe) Ready() bool { return p.live.up.Load() }

// StopProducing ends the producer while the consumer goes on draining: used
// by bench mode and by tests that check consumed = produced.
func (p *Probe) StopProducing() { p.stopOnce.Do(func() { close(p.stopProduce) }) }

// HoldConsumers makes the consumers stop polling (true) or resume (false)
// while staying in the group, so lag builds up: a hook for tests and demos.
func (p *Probe) HoldConsumers(hold bool) { p.held.Store(hold) }

// Sent is how many records the producer has handed to the client.
func (p *Probe) Sent() uint64 {
	if pr := p.producer.Load(); pr != nil {
		return pr.sent.Load()
	}
	return 0
}

// Run runs the probe until ctx is cancelled, then stops pacing, flushes with
// a deadline, commits and leaves the group. Kafka being away is retried; a
// client that cannot be built is retried with backoff (Options.RetryClients)
// or returned as the error.
func (p *Probe) Run(ctx context.Context) error {
	defer p.ev.Stopped()
	// The admin client's metadata answers are cached for a short time only,
	// so a topic deleted or created is seen at the next lag tick.
	var adminClient *kgo.Client
	for failures := 1; ; failures++ {
		var err error
		if adminClient, err = p.NewClient(kclient.RoleAdmin, "0", kgo.MetadataMinAge(250*time.Millisecond)); err == nil {
			break
		}
		if !p.opts.RetryClients {
			return err
		}
		if !sleep(ctx, p.clientFailed(ClientAdmin, failures, &buildError{ClientAdmin, err})) {
			return nil
		}
	}
	defer adminClient.Close()
	p.admin, p.adminClient = kadm.NewClient(adminClient), adminClient

	p.logger.Info("probe starting", "topic", p.cfg.Topic, "rate", p.cfg.Rate, "record_size", p.cfg.RecordSize, "run_id", strconv.FormatUint(p.runID, 16))
	if err := p.ensureTopic(ctx); err != nil {
		return nil // cancelled while Kafka was away: a clean stop
	}
	catchUpDone := make(chan struct{})
	catchUpCtx, stopCatchUps := context.WithCancel(ctx)
	go func() {
		defer close(catchUpDone)
		p.runCatchUps(catchUpCtx) // catchup.go
	}()
	defer func() {
		stopCatchUps()
		<-catchUpDone
	}()
	failures := 0
	for {
		if p.cfg.CreateTopic.LeaderOnEveryBroker {
			p.spreadLeaders(ctx)
		}
		recreated, err := p.runClients(ctx)
		var be *buildError
		if errors.As(err, &be) && p.opts.RetryClients {
			failures++
			if !sleep(ctx, p.clientFailed(be.client, failures, be)) {
				return nil
			}
			continue
		}
		failures = 0
		if err != nil || !recreated {
			if err == nil {
				p.logger.Info("probe stopped")
			}
			return err
		}
		// A recreated topic is a new topic: franz-go clients keep failing
		// on the old topic id, and its sequence numbers start afresh, so
		// the clients and the tracking state start over with a new run.
		p.newRun()
		p.logger.Warn("probe topic was deleted and recreated; restarted the probe's clients", "run_id", strconv.FormatUint(p.runID, 16))
	}
}

// newRun gives the probe a new run id and forgets every per-partition state.
func (p *Probe) newRun() {
	p.runState = newRunState(p.cfg, payload.NewRunID()) // the share tracker is set up again with the new run
	p.produceTimes.reset()
	p.positions.reset()
}

// runClients runs the consumers, the producer and the watcher until ctx is
// cancelled (recreated = false) or the watcher finds the topic recreated
// (recreated = true).
func (p *Probe) runClients(ctx context.Context) (recreated bool, err error) {
	var wg sync.WaitGroup
	consumeCtx, stopConsumers := context.WithCancel(context.Background())
	defer func() {
		stopConsumers()
		wg.Wait()
	}()
	share := p.cfg.Consumer.Enabled && p.cfg.Consumer.IsShare()
	if share {
		for failures := 1; ; failures++ {
			err := p.setupShare(ctx)
			if errors.Is(err, kclient.ErrNoShareGroups) {
				return false, p.shareUnsupported(err) // retrying cannot help: the probe stops
			}
			if err == nil {
				break
			}
			if !sleep(ctx, p.clientFailed(ClientGroup, failures, fmt.Errorf("setting up the share group: %w", err))) {
				return false, nil
			}
		}
	}
	if p.cfg.Consumer.Enabled && !share && !p.opts.Bench.ConsumeOnly {
		// A lasting failure (a denied group ACL) backs off, and shows in
		// probe_up and kafka_bench_probe_client_failed_total.
		for failures := 1; ; failures++ {
			err := p.startAtEnd(ctx)
			if err == nil {
				break
			}
			if !sleep(ctx, p.clientFailed(ClientGroup, failures, fmt.Errorf("setting the group's start offsets: %w", err))) {
				return false, nil
			}
		}
	}
	if share {
		if err := p.startShareMembers(consumeCtx, &wg); err != nil {
			return false, err
		}
		if !p.opts.Bench.ConsumeOnly {
			p.waitShareReady(ctx)
		}
	}
	if p.cfg.Consumer.Enabled && !share {
		for i := 0; i < p.cfg.Consumer.Consumers; i++ {
			c, err := p.newConsumer(i, false)
			if err != nil {
				return false, &buildError{ClientConsumer, err}
			}
			wg.Go(func() {
				defer c.client.Close() // leaves the group
				c.run(consumeCtx)
			})
		}
		if p.cfg.Consumer.Churn != nil {
			wg.Go(func() { p.churn(consumeCtx) })
		}
	}
	if !p.opts.Bench.ConsumeOnly {
		stopReplica, err := p.replica.start(ctx, p.runID, p.clk) // before the first record
		if err != nil {
			return false, err // a *buildError
		}
		defer stopReplica()
	}
	stopProducer := func() {}
	if !p.opts.Bench.ConsumeOnly && !p.producingStopped() {
		if stopProducer, err = p.startProducer(ctx); err != nil {
			return false, &buildError{ClientProducer, err}
		}
	}
	defer stopProducer()
	p.live.recovered()

	watchCtx, stopWatch := context.WithCancel(context.Background())
	recreatedCh, watched := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(watched)
		p.watch(watchCtx, recreatedCh)
	}()
	defer func() {
		stopWatch()
		<-watched
	}()

	for {
		select {
		case <-ctx.Done():
			return false, nil
		case <-recreatedCh:
			return true, nil
		case <-p.stopProduce:
			stopProducer()
			select {
			case <-ctx.Done():
				return false, nil
			case <-recreatedCh:
				return true, nil
			}
		}
	}
}

// newConsumer builds member member of the probe's group, its client
// labelled by the member index; the churn member (consumer.churn) is
// labelled churn and joins as a dynamic member, so that it leaves the group
// when it closes even when the others are static.
func (p *Probe) newConsumer(member int, churn bool) (*consumer, error) {
	c := &consumer{runDeps: p.runDeps, interval: time.Duration(p.cfg.Consumer.AutoCommitIntervalMS) * time.Millisecond,
		member: newMember(p.reb, p.clk, churn)}
	cfg, label := p.cfg, strconv.Itoa(member)
	if churn {
		cfg.Consumer.GroupInstanceID, label = "", "churn"
	}
	opts := kclient.ConsumerOpts(cfg, member, c.callbacks())
	if p.ev.WantsFetched() {
		opts = append(opts, kgo.WithHooks(fetchedFrom{p.ev}))
	}
	cl, err := p.NewClient(kclient.RoleConsumer, label, opts...)
	if err != nil {
		return nil, err
	}
	c.client = cl
	return c, nil
}

func (p *Probe) producingStopped() bool {
	select {
	case <-p.stopProduce:
		return true
	default:
		return false
	}
}

// startProducer starts the paced producer; the returned func stops it
// (flush with a deadline, close).
func (p *Probe) startProducer(ctx context.Context) (stop func(), err error) {
	cl, err := p.NewClient(kclient.RoleProducer, "0", kclient.ProducerOpts(p.cfg)...)
	if err != nil {
		return nil, err
	}
	pr := newProducer(p.runDeps, cl, p.opts.Bench.NumRecords)
	p.producer.Store(pr)
	produceCtx, stopPacing := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		pr.run(produceCtx)
	}()
	var once sync.Once
	return func() { once.Do(func() { pr.stop(stopPacing, done, FlushTimeout) }) }, nil
}

// NewClient builds a client of the probe in role (kclient.Role*) for member:
// the probe's Kafka settings, credentials and client-metric labels.
func (p *Probe) NewClient(role, member string, extra ...kgo.Opt) (*kgo.Client, error) {
	cl, err := kclient.New(p.opts.Kafka, kclient.Options{Logger: p.logger, Registerer: p.opts.Registerer,
		Labels: kclient.Labels{Probe: p.cfg.Name, Role: role, Member: member}, Probing: true,
		Credentials: p.opts.Credentials}, extra...)
	if err != nil {
		return nil, fmt.Errorf("probe %q: %s client: %w", p.cfg.Name, role, err)
	}
	return cl, nil
}
