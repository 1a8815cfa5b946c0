package run

import (
	"context"
	"log/slog"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/kafka-bench/kafka_bench_exporter/bench/result"
	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/kclient"
	"github.com/kafka-bench/kafka_bench_exporter/probes"
)

// Part is how this process takes part in a bench. Alone, the default,
// runs all of it; package workers runs one worker's part of a bench that
// several processes run at once. Runner.Run asks it what to run and
// starts its Sweep; the runs are the Sweep's.
type Part interface {
	// Begin refuses what the part cannot run and returns what this
	// process runs of b and the sweep id of its topics and groups (empty:
	// one from the clock).
	Begin(b *spec.Bench) (*spec.Bench, string, error)
	// Start readies a sweep of runs runs (scenarios × rounds); the Sweep's
	// Close ends it. Its clients take their credentials from creds.
	Start(ctx context.Context, k config.Cluster, creds *kclient.CredentialPool, runs int, logger *slog.Logger) (Sweep, error)
}

// Sweep is a Part at work: each run's place in the sweep (when it
// starts, its topic, who cleans up), its records (Records) and its
// result.
type Sweep interface {
	// Scenario takes the seq-th run's probe (this process's part of its
	// rate) and returns when the run starts (zero: at once) and who ran it
	// (nil for the whole bench).
	Scenario(b *spec.Bench, seq int, p *config.Probe) (start time.Time, worker *result.WorkerInfo)
	// Prepare readies the run's topic.
	Prepare(ctx context.Context, adm *kadm.Client, b *spec.Bench, p *config.Probe, start time.Time) error
	// WaitStart waits for the run's start and says how late this process is.
	WaitStart(ctx context.Context, start time.Time, name string) (time.Duration, error)
	// DeletesTopic says, at clean-up, whether this process deletes the
	// seq-th run's topic and group.
	DeletesTopic(b *spec.Bench, seq int) bool
	Records
	// Publish hands a run's result on; one it cannot hand on fails.
	Publish(ctx context.Context, paramKeys []string, r *result.Result)
	Close()
}

// Records is what a run's measurement asks of the Sweep: whose records
// the probe writes and reads, and how its consumers end.
type Records interface {
	// ProbeRuns sets the run ids of the seq-th run's records.
	ProbeRuns(o *probes.BenchOptions, seq int)
	// Drain is how the seq-th run's consumers end; nil: each reads its
	// own producer's records back.
	Drain(seq int, p config.Probe) GroupDrain
}

// GroupDrain ends a run whose consumers several processes share: none can
// tell from its own records when all are read.
type GroupDrain interface {
	// Announce says this process's producer is done, acked records
	// acknowledged; GiveUp says so for a producer that failed.
	Announce(ctx context.Context, acked int64) error
	GiveUp(ctx context.Context, acked int64)
	// Check reads the group's progress; Done says all is read.
	Check(ctx context.Context) int64
	Done() bool
	// Stalled is the error of a drain without progress for stall; nil
	// ends it without one.
	Stalled(stall time.Duration) error
	Close()
}

// Alone runs the whole bench in this process; it is its own Sweep.
type Alone struct{}

var (
	_ Part  = Alone{}
	_ Sweep = Alone{}
)

// Begin runs all of b, with a sweep id from the clock.
func (Alone) Begin(b *spec.Bench) (*spec.Bench, string, error) { return b, "", nil }

// Start has nothing to ready: no other process takes part.
func (Alone) Start(context.Context, config.Cluster, *kclient.CredentialPool, int, *slog.Logger) (Sweep, error) {
	return Alone{}, nil
}

// Close has nothing to end.
func (Alone) Close() {}

// Scenario leaves the probe its whole rate and starts the run at once.
func (Alone) Scenario(*spec.Bench, int, *config.Probe) (time.Time, *result.WorkerInfo) {
	return time.Time{}, nil
}

// Prepare creates or checks the run's topic (PrepareTopic).
func (Alone) Prepare(ctx context.Context, adm *kadm.Client, b *spec.Bench, p *config.Probe, _ time.Time) error {
	return PrepareTopic(ctx, adm, b, p)
}

// WaitStart does not wait: the run starts at once, never late.
func (Alone) WaitStart(context.Context, time.Time, string) (time.Duration, error) { return 0, nil }

// ProbeRuns leaves the run ids random.
func (Alone) ProbeRuns(*probes.BenchOptions, int) {}

// Drain is nil: the consumer reads its own producer's records back.
func (Alone) Drain(int, config.Probe) GroupDrain { return nil }

// DeletesTopic is always true: the process that made the topic cleans up.
func (Alone) DeletesTopic(*spec.Bench, int) bool { return true }

// Publish has no one to hand the result to: the runner keeps it.
func (Alone) Publish(context.Context, []string, *result.Result) {}
