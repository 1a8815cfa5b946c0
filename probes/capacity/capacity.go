// Package capacity is a probe's capacity canary: every capacity.interval
// it ramps the produce rate step by step on its own topic, with the probe
// engine's intended-time pacing and latency measurement, until a step
// misses the latency SLO or the ceiling passes, and exports the highest
// rate that passed.
package capacity

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/kclient"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
)

// Results of a capacity run (kafka_bench_capacity_runs_total{result}) and
// why it stopped (kafka_bench_capacity_limit{reason}): event.CapacityResults
// and event.CapacityLimits.
const (
	ResultOK      = event.CapacityOK
	ResultAborted = event.CapacityAborted
	ResultError   = event.CapacityError
	LimitLatency  = event.LimitLatency
	LimitRate     = event.LimitRate
	LimitErrors   = event.LimitErrors
	LimitCeiling  = event.LimitCeiling
)

// Results and Limits list the label values, in exposition order.
var (
	Results = event.CapacityResults
	Limits  = event.CapacityLimits
)

const (
	// minAchieved: a step passes only if it acknowledged at least
	// this fraction of its target rate.
	minAchieved = 0.95
	// retention bounds what a run leaves on its topic, unless the
	// probe's create_topic.configs say otherwise.
	retention = "600000"
	// topicTimeout bounds creating and describing the topic.
	topicTimeout = 30 * time.Second
)

// Options are what a capacity canary needs besides the probe.
type Options struct {
	// Kafka is the probe's cluster, resolved.
	Kafka config.Cluster
	// Payload are the entries of the probe's payload file, resolved.
	Payload [][]byte
	// Metrics, when set, hears of each run's outcome (nil in bench mode):
	// promsink.CapacityMetrics.
	Metrics event.CapacitySink
	Logger  *slog.Logger
	// Gate keeps runs of several probes from overlapping; nil = no gate.
	Gate *Gate
	// Credentials are shared with the probe's clients (see probes.Options).
	Credentials *kclient.CredentialPool
}

// Step is one step of a run.
type Step struct {
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

// Result is one run's outcome. RecordsPerSecond is the target of
// the highest step that passed (0 if none did), P99 that step's p99.
type Result struct {
	Result           string
	Limit            string
	RecordsPerSecond float64
	BytesPerSecond   float64
	P99              time.Duration
	EndToEndP99      time.Duration
	Steps            []Step
	Err              error
}

// Canary measures the throughput a probe's cluster sustains within the
// latency SLO: each run ramps the rate step by step on the capacity topic,
// with the steady producer's intended-time pacing and latency measurement,
// until a step fails or the ceiling passes.
type Canary struct {
	probe  config.Probe // its Topic is the capacity topic
	cfg    config.Capacity
	opts   Options
	logger *slog.Logger
	// probeLogger logs what the probe's own code logs (the payload pool).
	probeLogger *slog.Logger
	m           event.CapacityHook // nil without Metrics
}

// New prepares the capacity canary of p, whose Capacity must be set.
// Its clients use the client.id <kafka.client_id>-capacity-<probe>, so that
// a Kafka quota can single them out.
func New(p config.Probe, opts Options) *Canary {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	cfg := *p.Capacity
	p.Topic, p.Rate, p.Capacity = cfg.Topic, 0, nil
	p.Consumer.Enabled = false
	// It measures the produce ceiling outside transactions; with the
	// probe's transactional.id it would fence the probe's producer.
	p.Producer.TransactionalID, p.Producer.TransactionAbortRatio = "", 0
	configs := map[string]string{"retention.ms": retention, "segment.ms": retention}
	maps.Copy(configs, p.CreateTopic.Configs)
	p.CreateTopic.Configs = configs
	opts.Kafka.Kafka.ClientID = ClientID(opts.Kafka.Kafka.ClientID, p.Name)
	probeLogger := logger.With("probe", p.Name)
	c := &Canary{probe: p, cfg: cfg, opts: opts, probeLogger: probeLogger, logger: probeLogger.With("capacity_topic", p.Topic)}
	if opts.Metrics != nil {
		c.m = opts.Metrics.ForCapacity(p.Name, time.Duration(cfg.Interval))
	}
	return c
}

// ClientID is the client.id of a probe's capacity clients.
func ClientID(clientID, probe string) string {
	return kclient.CapacityClientID(clientID, probe)
}

// RunOnce runs one ramp, logs it and records it in the metrics.
func (c *Canary) RunOnce(ctx context.Context) Result {
	steps := c.cfg.Steps(c.probe.RecordSize)
	c.logger.Info("capacity run starting", "steps", len(steps), "start_rate", steps[0], "ceiling", steps[len(steps)-1],
		"step_duration", c.cfg.StepDuration, "latency_slo", c.cfg.LatencySLO, "end_to_end_slo", c.cfg.EndToEndSLO)
	res := c.ramp(ctx, steps)
	args := []any{"result", res.Result, "limit", res.Limit, "capacity_records_per_second", res.RecordsPerSecond,
		"capacity_bytes_per_second", res.BytesPerSecond, "p99", res.P99, "steps", len(res.Steps)}
	switch res.Result {
	case ResultOK:
		c.logger.Info("capacity run finished", args...)
	case ResultAborted:
		c.logger.Info("capacity run aborted", args...)
	default:
		c.logger.Warn("capacity run failed", append(args, "err", res.Err)...)
	}
	if c.m != nil {
		c.m.OnCapacityRun(event.CapacityRun{Result: res.Result, Limit: res.Limit, RecordsPerSecond: res.RecordsPerSecond,
			BytesPerSecond: res.BytesPerSecond, P99: res.P99, End: time.Now()})
	}
	return res
}

// ramp runs the warm-up, the judged steps and the hold of the best one.
func (c *Canary) ramp(ctx context.Context, steps []float64) Result {
	r, err := c.start(ctx)
	if r != nil {
		defer r.close()
	}
	if err != nil {
		if ctx.Err() != nil {
			return Result{Result: ResultAborted}
		}
		return Result{Result: ResultError, Err: err}
	}
	stepDur := time.Duration(c.cfg.StepDuration)
	// An unjudged warm-up step at start_rate: a cold broker (JIT, page
	// cache) or new connections would otherwise fail the first step.
	warm := r.step(ctx, steps[0], stepDur)
	c.logger.Info("capacity warm-up", "target", warm.Target, "achieved", warm.Achieved, "p99", warm.P99, "errors", warm.Errors)
	res := Result{Result: ResultOK, Limit: LimitCeiling}
	best := -1 // index in steps of the highest step that passed
	for i, rate := range steps {
		st, err := r.judgedStep(ctx, &res, rate, stepDur, false)
		switch {
		case ctx.Err() != nil:
			return Result{Result: ResultAborted, Steps: res.Steps}
		case err != nil:
			return Result{Result: ResultError, Steps: res.Steps, Err: err}
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
				return Result{Result: ResultAborted, Steps: res.Steps}
			case err != nil:
				return Result{Result: ResultError, Steps: res.Steps, Err: err}
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
func (r *run) judgedStep(ctx context.Context, res *Result, rate float64, d time.Duration, hold bool) (Step, error) {
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

func (r *run) logStep(res *Result, st Step) {
	res.Steps = append(res.Steps, st)
	r.c.logger.Info("capacity step", "target", st.Target, "duration", st.Duration, "hold", st.Hold, "retry", st.Retry,
		"achieved", st.Achieved, "p99", st.P99, "end_to_end_p99", st.EndToEndP99, "errors", st.Errors,
		"passed", st.Limit == "", "limit", st.Limit)
}
