// Package bench is the one-shot bench's entry point: Run takes a bench
// (from a bench file or the quick flags) through the runner (bench/run),
// alone or as one worker of a sweep (bench/workers), and writes its lines,
// table and output file (bench/report). The command line parses the flags
// into Options and calls it; serving the probes' metrics meanwhile is the
// caller's (Options.Serve), as the engine does not know the HTTP layer.
package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/pprof"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kafka-bench/kafka_bench_exporter/bench/brokercfg"
	benchreport "github.com/kafka-bench/kafka_bench_exporter/bench/report"
	"github.com/kafka-bench/kafka_bench_exporter/bench/result"
	benchrun "github.com/kafka-bench/kafka_bench_exporter/bench/run"
	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/bench/workers"
	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/embedded"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
)

// Exit codes of the bench.
const (
	ExitOK       = 0
	ExitFailed   = 1 // a scenario failed or the sweep was interrupted
	ExitBadInput = 2
)

// Options are one bench run's settings.
type Options struct {
	// Name heads every line the bench writes to Stderr ("program bench").
	Name string
	// Bench is what to run; Source is where it came from, shown on an
	// HTML page.
	Bench  *spec.Bench
	Source Source
	// Worker makes this process one worker of a sweep; nil runs the whole
	// bench.
	Worker *workers.Worker
	// Embedded benches the in-process fake cluster (Bench has no brokers).
	Embedded bool
	// HostsRequired fails a scenario in which a host could not be measured.
	HostsRequired bool
	// Seed shuffles the scenario order of each round.
	Seed uint64
	// DryRun prints the plan to Stdout and runs nothing.
	DryRun bool
	// CPUProfile, when set, is the file of a CPU profile of the run (Go's
	// pprof format).
	CPUProfile string
	// Format is the table's on Stdout; Output, when set, is a file that
	// also gets the results, in OutputFormat (one of benchreport.Formats).
	Format, Output, OutputFormat string
	// Serve, when set, serves the probes' metrics while the bench runs:
	// it returns the sinks of the probes' events (the metrics, the landing
	// page's ring), the registerer of the Kafka clients' metrics and how
	// to stop serving. A server that fails later calls
	// stop, which stops the bench. Nil: the probes report to the runner's
	// recorder alone.
	Serve  func(ctx context.Context, stop context.CancelFunc) ([]event.Sink, prometheus.Registerer, func(), error)
	Logger *slog.Logger
	// Stdout gets the perf tools' lines and the table, Stderr the progress
	// lines and the errors.
	Stdout, Stderr io.Writer
}

// Run runs the bench and returns its exit code: ExitOK when every scenario
// passed, ExitFailed when one failed or the bench was stopped (ctx
// cancelled), ExitBadInput for settings the bench refuses. The bench may
// change o.Bench (the embedded cluster's brokers).
func Run(ctx context.Context, o Options) int {
	b, worker := o.Bench, o.Worker
	if worker != nil {
		if err := worker.Check(b); err != nil {
			o.say("%s: %v\n", o.Name, err)
			return ExitBadInput
		}
	}
	logger := o.Logger
	if o.CPUProfile != "" {
		stopProfile, err := startCPUProfile(o.CPUProfile)
		if err != nil {
			o.say("%s: --cpuprofile: %v\n", o.Name, err)
			return ExitBadInput
		}
		defer stopProfile()
	}
	if o.Embedded {
		if len(b.Kafka.Kafka.Brokers) > 0 {
			o.say("%s: --bench.embedded and brokers (%v) both given: choose one\n", o.Name, b.Kafka.Kafka.Brokers)
			return ExitBadInput
		}
		emb, err := embedded.Start(logger)
		if err != nil {
			o.say("%s: %v\n", o.Name, err)
			return ExitFailed
		}
		defer emb.Close()
		b.Kafka.Kafka.Brokers = emb.Brokers()
	}
	if len(b.Kafka.Kafka.Brokers) == 0 {
		o.say("%s: no Kafka brokers: set --kafka.brokers or kafka.brokers in the bench file "+
			"(benchmarking the in-process fake cluster measures nothing; --bench.embedded does it anyway, for tests)\n", o.Name)
		return ExitBadInput
	}
	// The bench file's kafka block is warned about as the daemon's is.
	for _, w := range (config.Section{Key: "kafka", Kafka: b.Kafka.Kafka}).Warnings() {
		logger.Warn(w)
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if b.Rounds > 1 {
		o.say("%s: %d rounds, scenario order shuffled with --seed=%d\n", o.Name, b.Rounds, o.Seed)
	}
	if o.DryRun {
		return o.plan(ctx, &benchrun.Runner{Logger: logger, Seed: o.Seed})
	}

	// Unwatched, the probes report to the runner's recorder alone (the
	// results come from it); with Serve, to the exporter's sinks as well.
	var sinks []event.Sink
	var clientMetrics prometheus.Registerer
	if o.Serve != nil {
		m, reg, shutdown, err := o.Serve(ctx, cancel)
		if err != nil {
			o.say("%s: %v\n", o.Name, err)
			return ExitBadInput
		}
		defer shutdown()
		sinks, clientMetrics = m, reg
	}

	runner := &benchrun.Runner{
		Sinks:         sinks,
		Registerer:    clientMetrics,
		Logger:        logger,
		Progress:      o.Stderr,
		OnResult:      func(r result.Result) { PrintResult(o.Stdout, r, b.Rounds) },
		Seed:          o.Seed,
		HostsRequired: o.HostsRequired,
	}
	if worker != nil { // a nil *workers.Worker is no run.Part
		runner.Part = worker
	}
	results, runErr := runner.Run(ctx, b)

	say(o.Stdout, "\n")
	if err := o.writeResults(o.Stdout, o.Format, results); err != nil {
		o.say("%s: %v\n", o.Name, err)
		return ExitFailed
	}
	if o.Output != "" {
		err := WriteFile(o.Output, func(w io.Writer) error { return o.writeResults(w, o.OutputFormat, results) })
		if err != nil {
			o.say("%s: %v\n", o.Name, err)
			return ExitFailed
		}
	}
	code := ExitOK
	for _, r := range results {
		if r.Failed() {
			o.say("%s: scenario %q failed: %s\n", o.Name, r.Name(), r.Err)
			code = ExitFailed
		}
	}
	if runErr != nil {
		o.say("%s: stopped after %d of %d runs: %v\n", o.Name, len(results), len(b.Scenarios)*b.Rounds, runErr)
		code = max(code, runErrCode(runErr))
	}
	return code
}

// startCPUProfile profiles the process into file until the returned stop.
func startCPUProfile(file string) (stop func(), err error) {
	f, err := os.Create(file)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		_ = f.Close()
	}, nil
}

// say writes a line to Stderr.
func (o *Options) say(format string, args ...any) { say(o.Stderr, format, args...) }

// plan runs --dry-run: exit 0 with the plan on stdout, 2 for a setting the
// bench refuses, 1 when the cluster cannot be read.
func (o *Options) plan(ctx context.Context, r *benchrun.Runner) int {
	if err := r.Plan(ctx, o.Bench, o.Stdout); err != nil {
		o.say("%s: %v\n", o.Name, err)
		return runErrCode(err)
	}
	return ExitOK
}

// runErrCode is the exit code of an error that stopped the bench: a setting
// refused before anything ran is bad input.
func runErrCode(err error) int {
	if _, ok := errors.AsType[*brokercfg.RefusedError](err); ok {
		return ExitBadInput
	}
	return ExitFailed
}

// writeResults writes results in one of benchreport.Formats; an HTML page
// also shows the bench file that produced them.
func (o *Options) writeResults(w io.Writer, format string, results []result.Result) error {
	return benchreport.Write(w, format, benchreport.Report{
		ParamKeys: o.Bench.ParamKeys, Results: results, Bench: o.Bench, Seed: o.Seed, File: o.Source.Text()})
}

// PrintResult writes a run's ProducerPerformance and ConsumerPerformance
// lines (and its capacity, or its failure) as the bench prints them after
// each run.
func PrintResult(w io.Writer, r result.Result, rounds int) {
	round := ""
	if rounds > 1 {
		round = fmt.Sprintf(", round %d of %d", r.Round, rounds)
	}
	say(w, "scenario %s%s (topic %s)\n", r.Name(), round, r.Topic)
	if r.Produce != nil && r.Produce.Records > 0 {
		say(w, "%s\n", benchreport.ProducerLine(r.Produce))
	}
	if c := r.Capacity; c != nil && !r.Failed() {
		say(w, "%s\n", benchreport.CapacityLine(c))
	}
	if r.Consume != nil && r.Consume.Records > 0 {
		say(w, "%s\n", benchreport.ConsumerHeader)
		say(w, "%s\n", benchreport.ConsumerLine(r.Consume))
	}
	if r.Consume != nil && r.Consume.PageCache != "" {
		say(w, "page cache before the read: %s\n", r.Consume.PageCache)
	}
	if r.Failed() {
		say(w, "FAILED: %s\n", r.Err)
	}
}

// WriteFile creates path and writes it with write.
func WriteFile(path string, write func(io.Writer) error) error {
	fh, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(fh); err != nil {
		return errors.Join(err, fh.Close())
	}
	return fh.Close()
}

// say writes a line of the bench's output to stdout or stderr. A write
// there that fails (a full disk behind a redirect) has nowhere left to be
// reported, so its error is dropped here, once; the exit code still says
// how the bench ended.
func say(w io.Writer, format string, args ...any) {
	_, _ = fmt.Fprintf(w, format, args...)
}
