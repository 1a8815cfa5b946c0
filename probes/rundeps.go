package probes

import (
	"log/slog"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/probes/tracker"
)

// runDeps is what the producer and the consumers share with their probe,
// handed over when the probe starts its clients: the run id and the tracker
// are that run's (a recreated topic starts new clients with a new run).
type runDeps struct {
	cfg        config.Probe
	runID      uint64
	clk        clock    // the probe's steady time: every in-process latency
	workerRuns []uint64 // BenchOptions.WorkerRuns
	tracker    *tracker.Tracker
	partitions *atomic.Int32 // grows when partitions are added
	m          *probeMetrics
	fails      failCounter
	latency    *leaderLatency
	live       *liveness
	rec        Recorder // nil: no recorder
	errs       *errLog
	logger     *slog.Logger
	// produceTimes (producer) and positions (consumers) feed the lag.
	produceTimes *produceTimes
	positions    *positions
	held         *atomic.Bool // consumers hold off polling (HoldConsumers)
}

func (p *Probe) runDeps() runDeps {
	return runDeps{cfg: p.cfg, runID: p.runID, clk: p.clk, workerRuns: p.opts.Bench.WorkerRuns, tracker: p.tracker, partitions: &p.partitions, m: p.m,
		fails: p.fails, latency: p.latency, live: p.live, rec: p.rec, errs: p.errs, logger: p.logger,
		produceTimes: p.produceTimes, positions: p.positions, held: &p.held}
}

// failCounter counts records given up on, in the metrics and the recorder.
type failCounter struct {
	counters map[string]prometheus.Counter
	rec      Recorder
}

func (f failCounter) add(reason string, n int) {
	f.counters[reason].Add(float64(n))
	if f.rec != nil {
		f.rec.Failed(reason, n)
	}
}
