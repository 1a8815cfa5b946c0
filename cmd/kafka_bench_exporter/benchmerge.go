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
	"github.com/kafka-bench/kafka_bench_exporter/bench/result"
	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/bench/workers"
	"github.com/kafka-bench/kafka_bench_exporter/config"
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
	cmd.Flag("workers", "Workers of a sweep: each runs its share of every scenario's rate and num_records on the scenario's topic and publishes its results to --results.topic; with merge, the workers to wait for.").
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

// runMerge is "bench merge": merge a sweep's results, from the results
// topic or from the workers' JSON files, into the output of one process's
// sweep.
func runMerge(f *flags, stdout, stderr io.Writer) int {
	bf, wf := f.bench, &f.bench.sweep
	fail := func(code int, err error) int {
		say(stderr, "%s %s %s: %v\n", program, benchCommand, mergeCommand, err)
		return code
	}
	if wf.workers < 1 {
		return fail(exitBadInput, fmt.Errorf("--workers=%d: must be at least 1", wf.workers))
	}
	var sweep *workers.Sweep
	var err error
	if files := wf.files; len(files) > 0 {
		if sweep, err = workers.ReadSweepFiles(files); err != nil {
			return fail(exitBadInput, err)
		}
		if !wf.setWorkers {
			wf.workers = max(sweep.Workers(), 1)
		}
	} else {
		k, err := mergeKafka(f)
		if err != nil {
			return fail(exitBadInput, err)
		}
		if wf.sweepName() == "" {
			return fail(exitBadInput, fmt.Errorf("give --run (or --start-at) to read from --results.topic=%s, or the workers' JSON files", wf.resultsTopic))
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		ctx, cancel := context.WithTimeout(ctx, wf.timeout)
		defer cancel()
		var start time.Time // zero: the newest sweep of --run
		if wf.startAt != "" {
			if start, err = time.Parse(time.RFC3339, wf.startAt); err != nil {
				return fail(exitBadInput, fmt.Errorf("--start-at=%s: not an RFC 3339 time such as 2026-01-02T15:04:05Z", wf.startAt))
			}
		}
		if sweep, err = workers.CollectSweep(ctx, k, wf.resultsTopic, wf.sweepName(), start, wf.workers); err != nil {
			return fail(exitFailed, err)
		}
	}
	for _, err := range sweep.Problems() {
		say(stderr, "%s %s %s: skipped: %v\n", program, benchCommand, mergeCommand, err)
	}
	m, err := sweep.Merge(wf.workers)
	if err != nil {
		return fail(exitFailed, err)
	}
	for _, r := range m.Results {
		bench.PrintResult(stdout, r, 1)
	}
	say(stdout, "\n")
	format := benchreport.FormatMarkdown
	if bf.setFormat && bf.output == "" {
		format = bf.format
	}
	if err := writeMerged(stdout, format, bf, m); err != nil {
		return fail(exitFailed, err)
	}
	if bf.output != "" {
		err := bench.WriteFile(bf.output, func(w io.Writer) error { return writeMerged(w, bf.format, bf, m) })
		if err != nil {
			return fail(exitFailed, err)
		}
	}
	for _, l := range m.Notes {
		say(stderr, "%s %s %s: %s\n", program, benchCommand, mergeCommand, l)
	}
	code := exitOK
	for _, l := range m.Missing {
		say(stderr, "%s %s %s: missing: %s\n", program, benchCommand, mergeCommand, l)
		code = exitFailed
	}
	for _, r := range m.Results {
		if r.Failed() {
			code = exitFailed
		}
	}
	return code
}

// mergeKafka is the cluster holding the results topic: --bench.file's kafka
// section, with --kafka.brokers replacing its brokers.
func mergeKafka(f *flags) (config.Cluster, error) {
	var k config.Cluster
	k.Kafka.SetDefaults()
	if f.bench.file != "" {
		b, err := spec.Load(f.bench.file)
		if err != nil {
			return k, err
		}
		k = b.Kafka
	}
	if f.setBrokers {
		k.Kafka.Brokers = f.overrides().Brokers
	}
	if len(k.Kafka.Brokers) == 0 {
		return k, fmt.Errorf("no Kafka brokers to read --results.topic=%s from: set --kafka.brokers or --bench.file", f.bench.sweep.resultsTopic)
	}
	return k, nil
}

// writeMerged writes the merged results like one process's; an HTML page
// shows --bench.file when given.
func writeMerged(w io.Writer, format string, bf *benchFlags, m *workers.Merged) error {
	if format == benchreport.FormatHTML {
		var file *result.FileText
		if bf.file != "" {
			file = bf.source().Text()
		}
		return benchreport.WriteHTML(w, m.ParamKeys, m.Results, file)
	}
	return benchreport.Write(w, format, m.ParamKeys, m.Results)
}
