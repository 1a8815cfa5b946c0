package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/probes"
)

const (
	// pollInterval is how often the runner looks at the counters; it only
	// bounds how late the end of a scenario is noticed, never a measurement
	// (those come from the records' own timestamps).
	pollInterval = 20 * time.Millisecond
	// failedInterval is how often the failure counter is gathered from the
	// registry (a full gather is too costly for every poll).
	failedInterval = time.Second
	topicTimeout   = 30 * time.Second
	cleanupTimeout = 15 * time.Second
	// DefaultProgressInterval is ProducerPerformance's reporting interval.
	DefaultProgressInterval = 5 * time.Second
)

// errInterrupted ends a scenario when the bench is stopped (SIGINT).
var errInterrupted = errors.New("interrupted")

// Runner runs a bench's scenarios one after another.
type Runner struct {
	// Metrics and Gatherer are the probe metrics and the registry they are
	// registered on (the runner reads kafka_bench_produce_failed_total).
	Metrics  *probes.Metrics
	Gatherer prometheus.Gatherer
	// Registerer receives the Kafka client metrics; nil leaves them out.
	Registerer prometheus.Registerer
	Logger     *slog.Logger
	// Progress receives the progress lines (stderr); nil prints none.
	Progress         io.Writer
	ProgressInterval time.Duration
	// ReadHost samples the load generator; nil uses ReadHost.
	ReadHost HostReader
	// RunID makes the generated topics and groups unique to this run;
	// empty picks one from the clock.
	RunID string
	// OnResult is called after each scenario (to print its lines at once).
	OnResult func(Result)
}

// Run runs every scenario in order and returns their results. It stops
// early, with ctx.Err(), when ctx is cancelled; the scenario under way ends
// cleanly (its clients closed, its topic deleted) and is reported failed.
func (r *Runner) Run(ctx context.Context, b *Bench) ([]Result, error) {
	if r.Logger == nil {
		r.Logger = slog.New(slog.DiscardHandler)
	}
	if r.ReadHost == nil {
		r.ReadHost = ReadHost
	}
	if r.ProgressInterval <= 0 {
		r.ProgressInterval = DefaultProgressInterval
	}
	if r.RunID == "" {
		r.RunID = strconv.FormatInt(time.Now().UnixNano(), 36)
	}
	opts, err := probes.ConnOpts(b.Kafka) // TLS and SASL as the probes use them
	if err != nil {
		return nil, err
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("admin client: %w", err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)

	prog := &progress{w: r.Progress, interval: r.ProgressInterval, total: len(b.Scenarios)}
	var results []Result
	for i, s := range b.Scenarios {
		if ctx.Err() != nil {
			break
		}
		res := r.scenario(ctx, adm, b, i, s, prog)
		results = append(results, res)
		if r.OnResult != nil {
			r.OnResult(res)
		}
	}
	return results, ctx.Err()
}

// scenario runs one scenario: topic, probe, produce, drain, clean up.
func (r *Runner) scenario(ctx context.Context, adm *kadm.Client, b *Bench, i int, s Scenario, prog *progress) Result {
	p := s.Probe
	// Generated names get the run id: a topic deleted at the end of the
	// last run and created again at once can still be half-deleted in the
	// brokers, and a new group reads its topic afresh.
	if s.OwnTopic {
		p.Topic += "-" + r.RunID
	}
	if s.OwnGroup {
		p.Consumer.GroupID = p.Topic
		if !s.OwnTopic {
			p.Consumer.GroupID += "-" + r.RunID
		}
	}
	res := Result{Scenario: s.Name, Params: s.Params, Topic: p.Topic}
	logger := r.Logger.With("scenario", s.DisplayName())
	if b.DeleteTopics {
		defer r.cleanup(adm, s, p, logger)
	}
	if err := prepareTopic(ctx, adm, b, &p); err != nil {
		res.Err = err.Error()
		return res
	}
	if b.FindMaxRate {
		return r.findMaxRate(ctx, b, p, res)
	}

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
	probe := probes.New(p, probes.Options{
		Kafka:       b.Kafka,
		Metrics:     r.Metrics,
		Registerer:  r.Registerer,
		Logger:      r.Logger,
		NumRecords:  limit,
		Recorder:    rec,
		ConsumeOnly: b.ConsumeOnly,
	})
	host := startHostWatch(ctx, r.ReadHost)
	start := time.Now()
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

	d := &driver{gatherer: r.Gatherer, b: b, probe: probe, rec: rec, label: p.Name, ctx: ctx,
		deliveryTimeout: time.Duration(p.Producer.DeliveryTimeoutMS) * time.Millisecond,
		exited:          exited, runErr: func() error { return runErr }}
	stopProgress := prog.watch(ctx, i, s, b, rec, host)
	err := d.run(p.Consumer.Enabled)
	stopProgress()
	hs, herr := host.stop(context.Background())
	if herr != nil {
		logger.Warn("host counters unavailable", "err", herr)
	}
	stopProbe()
	<-exited

	res.Host = hs
	if !b.ConsumeOnly {
		span := rec.ProduceSpan()
		res.Produce = &ProduceResult{Records: span.Records, Bytes: span.Bytes, Failed: d.failed,
			Elapsed: span.Last.Sub(span.First), Latency: span.Latency}
	}
	if p.Consumer.Enabled {
		res.Consume = consumeResult(rec, start, !b.ConsumeOnly)
	}
	if err != nil {
		res.Err = err.Error()
		logger.Error("scenario failed", "err", err)
	}
	return res
}

func consumeResult(rec *Recorder, start time.Time, own bool) *ConsumeResult {
	span, warmEnd := rec.ConsumeSpan()
	if !warmEnd.IsZero() {
		start = warmEnd // warm-up records are not measured
	}
	c := &ConsumeResult{Start: start, End: start, Records: span.Records, Bytes: span.Bytes}
	if span.Records > 0 {
		c.End = span.Last
		c.Rebalance = max(span.First.Sub(start), 0)
	}
	if own {
		lat := span.Latency
		c.EndToEnd = &lat
	}
	return c
}

// prepareTopic creates the scenario's topic and waits until every partition
// has a leader, so that neither tool's first records wait for an election;
// a consume-only scenario checks that its topic exists instead.
func prepareTopic(ctx context.Context, adm *kadm.Client, b *Bench, p *config.Probe) error {
	ctx, cancel := context.WithTimeout(ctx, topicTimeout)
	defer cancel()
	if b.ConsumeOnly {
		// Reading a pre-filled topic: never create it.
		p.CreateTopic.Enabled = false
		_, err := describeTopic(ctx, adm, p.Topic)
		if errors.Is(err, kerr.UnknownTopicOrPartition) {
			return fmt.Errorf("topic %q does not exist: consume_only reads a pre-filled topic", p.Topic)
		}
		return err
	}
	if !p.CreateTopic.Enabled {
		return nil // the probe checks and uses the topic as it is
	}
	ct := p.CreateTopic
	configs := make(map[string]*string, len(ct.Configs))
	for k, v := range ct.Configs {
		configs[k] = &v
	}
	resp, err := adm.CreateTopic(ctx, ct.Partitions, ct.ReplicationFactor, configs, p.Topic)
	if err == nil {
		err = resp.Err
	}
	want := ct.Partitions
	if errors.Is(err, kerr.TopicAlreadyExists) {
		want, err = 1, nil // kept from an earlier run: the probe uses it as it is
	}
	if err != nil {
		return fmt.Errorf("creating topic %q: %w", p.Topic, err)
	}
	for {
		td, err := describeTopic(ctx, adm, p.Topic)
		if err == nil && int32(len(td.Partitions)) >= want && allLed(td) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("topic %q: partitions without a leader after %s (last error: %v)", p.Topic, topicTimeout, err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func describeTopic(ctx context.Context, adm *kadm.Client, topic string) (kadm.TopicDetail, error) {
	tds, err := adm.ListTopics(ctx, topic)
	if err != nil {
		return kadm.TopicDetail{}, err
	}
	td, ok := tds[topic]
	if !ok {
		return td, kerr.UnknownTopicOrPartition
	}
	return td, td.Err
}

func allLed(td kadm.TopicDetail) bool {
	for _, pd := range td.Partitions {
		if pd.Err != nil || pd.Leader < 0 {
			return false
		}
	}
	return true
}

// cleanup deletes what the bench created for the scenario: its group and
// its topic. A topic named in the bench file is left alone.
func (r *Runner) cleanup(adm *kadm.Client, s Scenario, p config.Probe, logger *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	if s.OwnGroup && p.Consumer.Enabled {
		if _, err := adm.DeleteGroup(ctx, p.Consumer.GroupID); err != nil && !errors.Is(err, kerr.GroupIDNotFound) {
			logger.Warn("deleting the bench consumer group failed", "group", p.Consumer.GroupID, "err", err)
		}
	}
	if s.OwnTopic {
		if _, err := adm.DeleteTopic(ctx, p.Topic); err != nil && !errors.Is(err, kerr.UnknownTopicOrPartition) {
			logger.Warn("deleting the bench topic failed", "topic", p.Topic, "err", err)
		}
	}
}
