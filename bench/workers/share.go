package workers

import (
	"context"
	"log/slog"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/kafka-bench/kafka_bench_exporter/bench/result"
	"github.com/kafka-bench/kafka_bench_exporter/bench/run"
	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/kclient"
	"github.com/kafka-bench/kafka_bench_exporter/probes"
)

// A Worker is the runner's share of the bench (run.Share).
var _ run.Share = (*Worker)(nil)

// Begin refuses what the workers cannot split and returns this worker's
// share of b and the sweep id of its topics and groups.
func (w *Worker) Begin(b *spec.Bench) (*spec.Bench, string, error) {
	if err := w.Check(b); err != nil {
		return nil, "", err
	}
	return w.share(b), w.sweepID(), nil
}

// Start connects the results client and makes sure the results topic exists.
func (w *Worker) Start(ctx context.Context, k config.Cluster, creds *kclient.CredentialPool, runs int, logger *slog.Logger) error {
	ws, err := w.start(ctx, k, creds, runs, logger)
	w.ws = ws
	return err
}

// Close closes the results client.
func (w *Worker) Close() { w.ws.close() }

// Scenario gives the probe this worker's share of the rate and says when
// the seq-th run starts on every worker.
func (w *Worker) Scenario(b *spec.Bench, seq int, p *config.Probe) (time.Time, *result.WorkerInfo) {
	w.ws.shareRate(p)
	slot := w.scenarioStart(b, seq)
	return slot, w.ws.info(b, seq, slot, 0)
}

// Prepare makes the run's topic ready (worker 0) or waits for it.
func (w *Worker) Prepare(ctx context.Context, adm *kadm.Client, b *spec.Bench, p *config.Probe, start time.Time) error {
	return w.ws.prepare(ctx, adm, b, p, start)
}

// WaitStart sleeps until the run's common start.
func (w *Worker) WaitStart(ctx context.Context, start time.Time, name string) (time.Duration, error) {
	return w.ws.waitStart(ctx, start, name)
}

// ProbeRuns sets the run ids every worker derives from --run.
func (w *Worker) ProbeRuns(o *probes.BenchOptions, seq int) { w.ws.probeRuns(o, seq) }

// Drain is the shared group's drain; nil without a consumer.
func (w *Worker) Drain(seq int, p config.Probe) run.GroupDrain {
	if d := w.ws.drainer(seq, p); d != nil {
		return d
	}
	return nil // not a typed nil in the interface
}

// DeletesTopic is true for worker 0, once the others are done.
func (w *Worker) DeletesTopic(b *spec.Bench, seq int) bool { return w.ws.deletesTopic(b, seq) }

// Publish publishes the result for "bench merge".
func (w *Worker) Publish(ctx context.Context, paramKeys []string, r *result.Result) {
	w.ws.publishOrFail(ctx, paramKeys, r)
}
