package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/alecthomas/kingpin/v2"

	"github.com/kafka-bench/kafka_bench_exporter/bench"
	benchreport "github.com/kafka-bench/kafka_bench_exporter/bench/report"
	"github.com/kafka-bench/kafka_bench_exporter/bench/workers"
)

// workerFlags make a bench one worker of a sweep, and "bench merge" merge
// the sweep's results.
type workerFlags struct {
	workers, index int
	startAt, run   string
	resultsTopic   string
	timeout        time.Duration
	files          []string // bench merge FILE...
	setWorkers     bool
}

func addWorkerFlags(cmd *kingpin.CmdClause, wf *workerFlags) {
	cmd.Flag("workers", "Workers of a sweep: each runs its part of every scenario's rate and num_records on the scenario's topic and publishes its results to --results.topic; with merge, the workers to wait for.").
		Envar("BENCH_WORKERS").IsSetByUser(&wf.setWorkers).Default("1").IntVar(&wf.workers)
	cmd.Flag("worker-index", "This worker's index, 0 ... --workers - 1 (a Kubernetes Indexed Job sets JOB_COMPLETION_INDEX); worker 0 creates and deletes the topics.").
		Envar("JOB_COMPLETION_INDEX").Default("0").IntVar(&wf.index)
	cmd.Flag("start-at", "The sweep's common start (RFC 3339), the same on every worker: the first scenario starts then, each later duration scenario a slot (duration + drain_timeout + 30s) after the one before.").
		Envar("BENCH_START_AT").StringVar(&wf.startAt)
	cmd.Flag("results.topic", "Topic the workers publish their results to, keyed by --run (created on demand); merge reads it.").
		Envar("BENCH_RESULTS_TOPIC").Default(workers.DefaultResultsTopic).StringVar(&wf.resultsTopic)
	cmd.Flag("run", "Name of the sweep: the key of its results and part of its topic names. Default: --start-at. A sweep that reuses a name is told apart by its --start-at: an earlier sweep's results and producers' end markers are ignored and logged (merge names them on stderr; given --run alone it merges the newest sweep of that name).").
		Envar("BENCH_RUN").StringVar(&wf.run)
	cmd.Flag("timeout", "merge: how long to wait for every worker's results; the workers still missing then are named and the merge fails.").
		Default("10m").DurationVar(&wf.timeout)
}

// worker is the bench's place in a sweep, or nil with one worker.
func (wf *workerFlags) worker() (*workers.Worker, error) {
	if wf.workers < 1 {
		return nil, fmt.Errorf("--workers=%d: must be at least 1", wf.workers)
	}
	if wf.index < 0 || wf.index >= wf.workers {
		return nil, fmt.Errorf("--worker-index=%d: must be below --workers=%d", wf.index, wf.workers)
	}
	if wf.workers == 1 {
		return nil, nil
	}
	if wf.startAt == "" {
		return nil, fmt.Errorf("--workers=%d: needs --start-at, the sweep's common start (RFC 3339)", wf.workers)
	}
	start, err := time.Parse(time.RFC3339, wf.startAt)
	if err != nil {
		return nil, fmt.Errorf("--start-at=%s: not an RFC 3339 time such as 2026-01-02T15:04:05Z", wf.startAt)
	}
	return &workers.Worker{Workers: wf.workers, Index: wf.index, StartAt: start, SweepName: wf.sweepName(), ResultsTopic: wf.resultsTopic}, nil
}

func (wf *workerFlags) sweepName() string {
	if wf.run != "" {
		return wf.run
	}
	return wf.startAt
}

// runMerge is "bench merge": bench.Merge of the flags.
func runMerge(f *flags, stdout, stderr io.Writer) int {
	bf, wf := f.bench, &f.bench.sweep
	o := bench.MergeOptions{
		Name:         program + " " + benchCommand + " " + mergeCommand,
		Files:        wf.files,
		Workers:      wf.workers,
		WorkersSet:   wf.setWorkers,
		ResultsTopic: wf.resultsTopic,
		SweepName:    wf.sweepName(),
		StartAt:      wf.startAt,
		Timeout:      wf.timeout,
		BenchFile:    bf.file,
		Brokers:      f.overrides().Brokers,
		Format:       benchreport.FormatMarkdown,
		Output:       bf.output,
		OutputFormat: bf.format,
		Stdout:       stdout,
		Stderr:       stderr,
	}
	if bf.setFormat && bf.output == "" {
		o.Format = bf.format
	}
	ctx := context.Background()
	if len(wf.files) == 0 { // the results topic is read: an interrupt ends the wait
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		defer stop()
	}
	return bench.Merge(ctx, o)
}
