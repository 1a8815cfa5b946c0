package probes

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/kclient"
	"github.com/kafka-bench/kafka_bench_exporter/probes/pacer"
	"github.com/kafka-bench/kafka_bench_exporter/probes/payload"
)

// Results of a capacity run (kafka_bench_capacity_runs_total{result}).
const (
	CapacityOK      = "ok"      // the ramp ran to a limit
	CapacityAborted = "aborted" // stopped by reload or shutdown
	CapacityError   = "error"   // could not ramp: no client, no topic, the cluster down during a step
)

// Limits: why a capacity run stopped (kafka_bench_capacity_limit{reason}).
const (
	LimitLatency = "latency" // a step's p99 exceeded the SLO
	LimitRate    = "rate"    // a step achieved less than capacityMinAchieved of its target
	LimitErrors  = "errors"  // a step had produce (or, with end_to_end_slo, consume) errors
	LimitCeiling = "ceiling" // the step at max_rate / max_bytes_per_second passed
)

// CapacityResults and CapacityLimits list the label values, in exposition order.
var (
	CapacityResults = []string{CapacityOK, CapacityAborted, CapacityError}
	CapacityLimits  = []string{LimitLatency, LimitRate, LimitErrors, LimitCeiling}
)

const (
	// capacityMinAchieved: a step passes only if it acknowledged at least
	// this fraction of its target rate.
	capacityMinAchieved = 0.95
	// capacityRetention bounds what a run leaves on its topic, unless the
	// probe's create_topic.configs say otherwise.
	capacityRetention = "600000"
	// capacityTopicTimeout bounds creating and describing the topic.
	capacityTopicTimeout = 30 * time.Second
)

// CapacityOptions are what a capacity runner needs besides the probe.
type CapacityOptions struct {
	Kafka config.Kafka
	// Metrics, when set, receives each run's outcome (nil in bench mode).
	Metrics *CapacityMetrics
	Logger  *slog.Logger
	// Gate keeps runs of several probes from overlapping; nil = no gate.
	Gate *CapacityGate
	// Credentials are shared with the probe's clients (see Options).
	Credentials *kclient.CredentialPool
}

// CapacityStep is one step of a run.
type CapacityStep struct {
	Target float64 // records/s
	// Duration is how long the step sent: step_duration, or the quota
	// window for a step that confirms the best one (Hold).
	Duration time.Duration
	// Hold: the step held the best passing rate for the brokers' quota
	// window, longer than step_duration, before it was reported.
	Hold bool
	// Retry: the step repeated one that had errors, once the cluster took
	// records again.
	Retry    bool
	Achieved float64 // records/s acknowledged by the step's end plus its median latency
	P99      time.Duration
	// EndToEndP99 is measured with end_to_end_slo only.
	EndToEndP99 time.Duration
	Errors      uint64
	// Limit is why the step failed; "" when it passed.
	Limit string
}

// CapacityResult is one run's outcome. RecordsPerSecond is the target of
// the highest step that passed (0 if none did), P99 that step's p99.
type CapacityResult struct {
	Result           string
	Limit            string
	RecordsPerSecond float64
	BytesPerSecond   float64
	P99              time.Duration
	EndToEndP99      time.Duration
	Steps            []CapacityStep
	Err              error
}

// Capacity measures the throughput a probe's cluster sustains within the
// latency SLO: each run ramps the rate step by step on the capacity topic,
// with the steady producer's intended-time pacing and latency measurement,
// until a step fails or the ceiling passes.
type Capacity struct {
	probe   config.Probe // its Topic is the capacity topic
	cfg     config.Capacity
	opts    CapacityOptions
	logger  *slog.Logger
	m       *capacitySeries // nil without Metrics
	scratch *Metrics        // the borrowed Probe's own metrics, never exposed
}

// NewCapacity prepares the capacity canary of p, whose Capacity must be set.
// Its clients use the client.id <kafka.client_id>-capacity-<probe>, so that
// a Kafka quota can single them out.
func NewCapacity(p config.Probe, opts CapacityOptions) *Capacity {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	cfg := *p.Capacity
	p.Topic, p.Rate, p.Capacity = cfg.Topic, 0, nil
	p.Consumer.Enabled = false
	configs := map[string]string{"retention.ms": capacityRetention, "segment.ms": capacityRetention}
	maps.Copy(configs, p.CreateTopic.Configs)
	p.CreateTopic.Configs = configs
	opts.Kafka.ClientID = CapacityClientID(opts.Kafka.ClientID, p.Name)
	c := &Capacity{probe: p, cfg: cfg, opts: opts, logger: logger.With("probe", p.Name, "capacity_topic", p.Topic),
		scratch: NewMetrics(prometheus.NewRegistry())}
	if opts.Metrics != nil {
		c.m = opts.Metrics.forProbe(p.Name, time.Duration(cfg.Interval))
	}
	return c
}

// CapacityClientID is the client.id of a probe's capacity clients.
func CapacityClientID(clientID, probe string) string {
	return kclient.CapacityClientID(clientID, probe)
}

// RunOnce runs one ramp, logs it and records it in the metrics.
func (c *Capacity) RunOnce(ctx context.Context) CapacityResult {
	steps := c.cfg.Steps(c.probe.RecordSize)
	c.logger.Info("capacity run starting", "steps", len(steps), "start_rate", steps[0], "ceiling", steps[len(steps)-1],
		"step_duration", c.cfg.StepDuration, "latency_slo", c.cfg.LatencySLO, "end_to_end_slo", c.cfg.EndToEndSLO)
	res := c.run(ctx, steps)
	args := []any{"result", res.Result, "limit", res.Limit, "capacity_records_per_second", res.RecordsPerSecond,
		"capacity_bytes_per_second", res.BytesPerSecond, "p99", res.P99, "steps", len(res.Steps)}
	switch res.Result {
	case CapacityOK:
		c.logger.Info("capacity run finished", args...)
	case CapacityAborted:
		c.logger.Info("capacity run aborted", args...)
	default:
		c.logger.Warn("capacity run failed", append(args, "err", res.Err)...)
	}
	if c.m != nil {
		c.m.record(res, time.Now())
	}
	return res
}

func (c *Capacity) run(ctx context.Context, steps []float64) CapacityResult {
	r, err := c.start(ctx)
	if r != nil {
		defer r.close()
	}
	if err != nil {
		if ctx.Err() != nil {
			return CapacityResult{Result: CapacityAborted}
		}
		return CapacityResult{Result: CapacityError, Err: err}
	}
	stepDur := time.Duration(c.cfg.StepDuration)
	// An unjudged warm-up step at start_rate: a cold broker (JIT, page
	// cache) or new connections would otherwise fail the first step.
	warm := r.step(ctx, steps[0], stepDur)
	c.logger.Info("capacity warm-up", "target", warm.Target, "achieved", warm.Achieved, "p99", warm.P99, "errors", warm.Errors)
	res := CapacityResult{Result: CapacityOK, Limit: LimitCeiling}
	best := -1 // index in steps of the highest step that passed
	for i, rate := range steps {
		st, err := r.judgedStep(ctx, &res, rate, stepDur, false)
		switch {
		case ctx.Err() != nil:
			return CapacityResult{Result: CapacityAborted, Steps: res.Steps}
		case err != nil:
			return CapacityResult{Result: CapacityError, Steps: res.Steps, Err: err}
		}
		if st.Limit != "" {
			res.Limit = st.Limit
			break
		}
		best = i
		res.RecordsPerSecond, res.P99, res.EndToEndP99 = st.Target, st.P99, st.EndToEndP99
	}
	// Steps shorter than the brokers' quota window pass before Kafka
	// throttles (it averages over the whole window): the best step is held
	// that long before it is reported, and the next lower one if it fails.
	if hold := r.quotaWindow; hold > stepDur {
		for ; best >= 0; best-- {
			st, err := r.judgedStep(ctx, &res, steps[best], hold, true)
			switch {
			case ctx.Err() != nil:
				return CapacityResult{Result: CapacityAborted, Steps: res.Steps}
			case err != nil:
				return CapacityResult{Result: CapacityError, Steps: res.Steps, Err: err}
			}
			if st.Limit == "" {
				res.RecordsPerSecond, res.P99, res.EndToEndP99 = st.Target, st.P99, st.EndToEndP99
				break
			}
			res.Limit = st.Limit
			res.RecordsPerSecond, res.P99, res.EndToEndP99 = 0, 0, 0
		}
	}
	res.BytesPerSecond = res.RecordsPerSecond * float64(c.probe.RecordSize)
	return res
}

// judgedStep runs one step, logs it and appends it to res.Steps. A step
// with errors says nothing about capacity when the cluster is down: the
// run then checks that the cluster takes records at all, and fails (err)
// when it does not, so an outage never lowers the capacity; when it does,
// the step is repeated once and the repeat decides.
func (r *capacityRun) judgedStep(ctx context.Context, res *CapacityResult, rate float64, d time.Duration, hold bool) (CapacityStep, error) {
	st := r.step(ctx, rate, d)
	st.Hold = hold
	if err := ctx.Err(); err != nil {
		return st, err
	}
	r.logStep(res, st)
	if st.Limit != LimitErrors {
		return st, nil
	}
	if err := r.available(ctx); err != nil {
		return st, fmt.Errorf("cluster unavailable during the step at %g records/s: %w", rate, err)
	}
	r.c.logger.Warn("capacity step had errors while the cluster takes records: repeating it once", "target", rate)
	st = r.step(ctx, rate, d)
	st.Hold, st.Retry = hold, true
	if ctx.Err() == nil {
		r.logStep(res, st)
	}
	return st, nil
}

func (r *capacityRun) logStep(res *CapacityResult, st CapacityStep) {
	res.Steps = append(res.Steps, st)
	r.c.logger.Info("capacity step", "target", st.Target, "duration", st.Duration, "hold", st.Hold, "retry", st.Retry,
		"achieved", st.Achieved, "p99", st.P99, "end_to_end_p99", st.EndToEndP99, "errors", st.Errors,
		"passed", st.Limit == "", "limit", st.Limit)
}

// capacityRun holds one run's clients. The step loop is its only writer of
// seqs and rr; the promise and the end-to-end reader update the current step.
type capacityRun struct {
	c        *Capacity
	p        *Probe // the capacity topic's probe, for its topic and client code
	client   *kgo.Client
	reader   *kgo.Client // nil without end_to_end_slo
	readDone chan struct{}
	pool     *payload.Pool
	// quotaWindow is how long the brokers average client quotas over; 0
	// when they do not say.
	quotaWindow time.Duration
	seqs        []uint64
	rr          int32
	closeOnce   sync.Once
	stopAbort   func() bool

	mu    sync.Mutex
	steps []*stepStats // with end_to_end_slo the reader looks steps up by intended time
}

// start creates the capacity topic and the clients. A cancelled ctx closes
// the clients at once, which also unblocks a Produce waiting for buffer
// space: a run stops within a second, without flushing.
func (c *Capacity) start(ctx context.Context) (*capacityRun, error) {
	p := New(c.probe, Options{Kafka: c.opts.Kafka, Metrics: c.scratch, Logger: c.opts.Logger, Credentials: c.opts.Credentials})
	adminCl, err := p.newClient(kclient.RoleAdmin, "0")
	if err != nil {
		return nil, err
	}
	defer adminCl.Close()
	p.admin = kadm.NewClient(adminCl)
	// A new topic takes a moment to be described; ensureTopic retries.
	topicCtx, cancel := context.WithTimeout(ctx, capacityTopicTimeout)
	defer cancel()
	if err := p.ensureTopic(topicCtx); err != nil {
		return nil, fmt.Errorf("capacity topic %q not ready within %s: %w", p.cfg.Topic, capacityTopicTimeout, err)
	}
	r := &capacityRun{c: c, p: p, pool: newPool(p.cfg, p.logger)}
	r.quotaWindow = c.readQuotaWindow(ctx, p.admin)
	if r.client, err = p.newClient(kclient.RoleProducer, "0", kclient.ProducerOpts(c.probe)...); err != nil {
		return nil, err
	}
	r.stopAbort = context.AfterFunc(ctx, r.closeClients)
	if c.cfg.EndToEndSLO > 0 {
		if err := r.startReader(ctx); err != nil {
			return r, err
		}
	}
	return r, r.warmUp(ctx)
}

// readQuotaWindow reads the brokers' quota window and warns when steps are
// shorter: the best step is then held that long before it is reported.
func (c *Capacity) readQuotaWindow(ctx context.Context, adm *kadm.Client) time.Duration {
	ctx, cancel := context.WithTimeout(ctx, capacityTopicTimeout)
	defer cancel()
	window, ok, err := kclient.QuotaWindow(ctx, adm)
	switch {
	case err != nil:
		c.logger.Warn("reading the brokers' quota window failed: the best step is reported without a hold", "err", err)
	case !ok:
		c.logger.Debug("the brokers report no quota window: the best step is reported without a hold")
	case window > time.Duration(c.cfg.StepDuration):
		c.logger.Warn("capacity.step_duration is shorter than the brokers' quota window (quota.window.num × quota.window.size.seconds), so a step can pass before Kafka throttles: the best step is held for the quota window before it is reported",
			"step_duration", c.cfg.StepDuration, "quota_window", window)
	}
	return window
}

// warmUp sends one record per partition and waits for them: a cluster that
// takes no records at all is an error of the run, not a limit of a step.
func (r *capacityRun) warmUp(ctx context.Context) error {
	if err := r.available(ctx); err != nil {
		return fmt.Errorf("warm-up: %w", err)
	}
	return nil
}

// available sends one record per partition and waits up to 15 s for them:
// whether the cluster takes records at all.
func (r *capacityRun) available(ctx context.Context) error {
	now := r.p.clk.now()
	st := newStepStats(0, now, now, r.pool, r.p.clk.now)
	for range r.p.partitions.Load() {
		r.send(st, r.p.clk.now())
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := r.client.Flush(ctx); err != nil {
		return err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.errors > 0 {
		return st.firstErr
	}
	return nil
}

func (r *capacityRun) closeClients() {
	r.closeOnce.Do(func() {
		r.client.Close()
		if r.reader != nil {
			r.reader.Close()
		}
	})
}

func (r *capacityRun) close() {
	if r.client == nil {
		return
	}
	r.stopAbort()
	r.closeClients()
	if r.readDone != nil {
		<-r.readDone
	}
}

// step produces at rate for d, waits for the step's acknowledgements (and,
// with end_to_end_slo, its consumption) and judges it.
func (r *capacityRun) step(ctx context.Context, rate float64, d time.Duration) CapacityStep {
	cfg := r.c.cfg
	clock := r.p.clk.pacer()
	start := clock.Now()
	end := start.Add(d)
	st := newStepStats(rate, start, end, r.pool, r.p.clk.now)
	r.mu.Lock()
	r.steps = append(r.steps, st)
	r.mu.Unlock()

	// Rounds as the steady probe paces them at this step's rate.
	paced := r.p.cfg
	paced.Rate = rate
	pc := pacer.New(clock, start, rate, roundSize(paced, r.p.partitions.Load()))
	stepCtx, cancel := context.WithDeadline(ctx, end)
	for {
		first, n, err := pc.Wait(stepCtx, maxBatch)
		if err != nil {
			break
		}
		for i := first; i < first+n; i++ {
			r.send(st, pc.Intended(i))
		}
	}
	cancel()
	wait := max(flushTimeout, 2*time.Duration(max(cfg.LatencySLO, cfg.EndToEndSLO)))
	waitCtx, cancelWait := context.WithTimeout(ctx, wait)
	defer cancelWait()
	flushed := r.client.Flush(waitCtx) == nil
	read := r.reader == nil || st.waitConsumed(waitCtx)
	s := st.judge(cfg, flushed, read)
	s.Duration = d
	return s
}

// send hands one record to the client, round-robin over the partitions as
// the steady producer does.
func (r *capacityRun) send(st *stepStats, intended time.Time) {
	part := r.rr
	r.rr = (r.rr + 1) % max(r.p.partitions.Load(), 1)
	for int(part) >= len(r.seqs) {
		r.seqs = append(r.seqs, 0)
	}
	seq := r.seqs[part]
	r.seqs[part]++
	value := r.pool.Get(payload.Header{RunID: r.p.runID, Partition: part, Seq: seq, Intended: intended.UnixNano()})
	r.client.Produce(context.Background(), &kgo.Record{Partition: part, Value: value}, st.ack)
}

// startReader reads the capacity topic from its current end, without a
// group, to time end-to-end latency.
func (r *capacityRun) startReader(ctx context.Context) error {
	ends, err := r.p.admin.ListEndOffsets(ctx, r.p.cfg.Topic)
	if err != nil {
		return fmt.Errorf("capacity topic end offsets: %w", err)
	}
	offsets := map[int32]kgo.Offset{}
	ends.Each(func(o kadm.ListedOffset) { offsets[o.Partition] = kgo.NewOffset().At(o.Offset) })
	cc := r.p.cfg.Consumer
	r.reader, err = r.p.newClient(kclient.RoleConsumer, "0",
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{r.p.cfg.Topic: offsets}),
		kgo.FetchMinBytes(cc.FetchMinBytes), kgo.FetchMaxBytes(cc.FetchMaxBytes),
		kgo.FetchMaxPartitionBytes(cc.MaxPartitionFetchBytes),
		kgo.FetchMaxWait(time.Duration(cc.FetchMaxWaitMS)*time.Millisecond))
	if err != nil {
		return err
	}
	r.readDone = make(chan struct{})
	go func() {
		defer close(r.readDone)
		r.read(ctx)
	}()
	return nil
}

func (r *capacityRun) read(ctx context.Context) {
	for {
		fetches := r.reader.PollRecords(ctx, r.p.cfg.Consumer.MaxPollRecords)
		if fetches.IsClientClosed() || ctx.Err() != nil {
			return
		}
		now := r.p.clk.now()
		fetches.EachError(func(_ string, _ int32, err error) {
			if st := r.stepAt(now); st != nil && !errors.Is(err, context.Canceled) {
				st.fail(err)
			}
		})
		fetches.EachRecord(func(rec *kgo.Record) {
			h, err := payload.Decode(rec.Value)
			if err != nil || h.RunID != r.p.runID {
				return
			}
			if st := r.stepAt(time.Unix(0, h.Intended)); st != nil {
				st.consumed(since(h.Intended, now))
			}
		})
	}
}

// stepAt is the step whose records were intended at t.
func (r *capacityRun) stepAt(t time.Time) *stepStats {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, v := range slices.Backward(r.steps) {
		if !t.Before(v.start) {
			return v
		}
	}
	return nil
}

// closeErr tells an error of the run's own shutdown from a broker's.
func closeErr(err error) bool {
	return errors.Is(err, kgo.ErrClientClosed) || errors.Is(err, context.Canceled)
}
