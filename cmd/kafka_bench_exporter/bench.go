package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/promslog"
	"github.com/prometheus/common/version"

	"github.com/kafka-bench/kafka_bench_exporter/bench"
	benchreport "github.com/kafka-bench/kafka_bench_exporter/bench/report"
	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/bench/workers"
	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/exporter"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
)

// The bench command and its subcommands: run (the default: a plain
// "bench [flags]" runs the bench), report and merge.
const (
	benchCommand  = "bench"
	runCommand    = "run"
	reportCommand = "report"
	mergeCommand  = "merge"
)

// Exit codes of the bench command.
const (
	exitOK       = bench.ExitOK
	exitFailed   = bench.ExitFailed // a scenario failed or the sweep was interrupted
	exitBadInput = bench.ExitBadInput
)

// benchFlags are the bench command's own flags; --kafka.brokers,
// --collector.host, the --web.* and the log flags are the application's
// (both commands accept them). Every subcommand of bench accepts them all,
// before or after its name.
type benchFlags struct {
	file                               string
	numRecords                         int64
	recordSize                         int
	acks                               string
	partitions                         int32
	embedded, hostsRequired            bool
	output, format                     string
	setNum, setSize, setAcks, setParts bool
	setListen, setFormat               bool
	resultFile                         string // bench report FILE.json
	cpuProfile                         string
	rounds                             roundFlags
	sweep                              workerFlags
}

func addBenchCommand(app *kingpin.Application) *benchFlags {
	bf := &benchFlags{}
	cmd := app.Command(benchCommand, "Run a one-shot benchmark sweep (every scenario of a bench file, or of the quick flags) with the probe engine and print ProducerPerformance/ConsumerPerformance lines and a table.")
	cmd.Flag("bench.file", "YAML bench file: kafka, defaults (probe keys), num_records or duration, warmup_records, rate, delete_topics, drain_timeout, consume_only (with read_delay and cold), hosts, rounds, baseline, find_max_rate, restart (static broker settings through rolling restarts), scenarios, matrix (probe keys, broker.<name>, broker.<id>.<name>, topic.<name>). Required unless the quick flags below are given.").StringVar(&bf.file)
	cmd.Flag("bench.num-records", "Quick one-scenario bench: records to produce.").IsSetByUser(&bf.setNum).Default("1000000").Int64Var(&bf.numRecords)
	cmd.Flag("bench.record-size", "Quick one-scenario bench: record size in bytes.").IsSetByUser(&bf.setSize).Default(fmt.Sprint(config.DefaultRecordSize)).IntVar(&bf.recordSize)
	cmd.Flag("bench.acks", "Quick one-scenario bench: acks (0, 1 or all).").IsSetByUser(&bf.setAcks).Default("all").StringVar(&bf.acks)
	cmd.Flag("bench.partitions", "Quick one-scenario bench: partitions of the topic.").IsSetByUser(&bf.setParts).Default(fmt.Sprint(config.DefaultPartitions)).Int32Var(&bf.partitions)
	cmd.Flag("bench.embedded", "Bench the in-process fake cluster when no brokers are given (for tests only: it measures nothing real).").BoolVar(&bf.embedded)
	cmd.Flag("hosts-required", "Fail a scenario (exit 1) when a machine of the bench file's hosts cannot be scraped, instead of reporting it unreachable.").BoolVar(&bf.hostsRequired)
	cmd.Flag("output", "Also write the results to this file.").StringVar(&bf.output)
	cmd.Flag("cpuprofile", "Write a CPU profile of the whole run (Go's pprof format, for go tool pprof) to this file.").PlaceHolder("FILE").StringVar(&bf.cpuProfile)
	cmd.Flag("format", "Format of --output (and of stdout's table when given): markdown, csv, json or html (a self-contained page with charts).").IsSetByUser(&bf.setFormat).Default(benchreport.FormatMarkdown).EnumVar(&bf.format, benchreport.Formats...)
	addRoundFlags(cmd, &bf.rounds)
	addWorkerFlags(cmd, &bf.sweep)
	// Serving /metrics is optional in bench mode: only when asked for.
	app.GetFlag("web.listen-address").IsSetByUser(&bf.setListen)

	run := cmd.Command(runCommand, "Run the bench: what a plain `bench [<flags>]` does.").Default()
	// A word after bench that names no subcommand lands here, and is
	// refused by name with bench's commands listed.
	run.Arg("command", "").Hidden().SetValue(subcommandName{})
	report := cmd.Command(reportCommand, "Turn the saved JSON result FILE.json (from --format=json, with rounds or without) into the HTML report, on --output or stdout; --bench.file adds the bench file to it. Runs nothing.")
	report.Arg("FILE.json", "JSON result of an earlier sweep.").StringVar(&bf.resultFile)
	merge := cmd.Command(mergeCommand, "Merge a sweep's worker results (--results.topic and --run, or the workers' JSON files) into one run's lines and table. Runs nothing.")
	merge.Arg("FILE", "The workers' JSON results (--format=json); without them, the results topic is read.").StringsVar(&bf.sweep.files)
	return bf
}

// subcommandName is the value of the words after bench when the first
// names none of its subcommands: they are refused, the first named. It
// takes every word (IsCumulative), so that the first is the one refused.
type subcommandName struct{}

func (subcommandName) String() string { return "" }

func (subcommandName) IsCumulative() bool { return true }

func (subcommandName) Set(word string) error {
	if word == reportCommand || word == mergeCommand {
		return fmt.Errorf("%s %s takes no arguments: %s is a command of its own (%s %s)", benchCommand, runCommand, word, benchCommand, word)
	}
	return fmt.Errorf("%s has no command %q: give %s (the default), %s or %s", benchCommand, word, runCommand, reportCommand, mergeCommand)
}

// runBench is "bench [run]": the bench of the flags, run by bench.Run.
func runBench(f *flags, stdout, stderr io.Writer) int {
	bf := f.bench
	name := program + " " + benchCommand
	b, src, err := loadBench(f)
	var worker *workers.Worker
	if err == nil {
		worker, err = bf.sweep.worker()
	}
	if err != nil {
		say(stderr, "%s: %v\n", name, err)
		return exitBadInput
	}
	logger := promslog.New(&f.log)
	o := bench.Options{
		Name:          name,
		Bench:         b,
		Source:        src,
		Worker:        worker,
		Embedded:      bf.embedded,
		HostsRequired: bf.hostsRequired,
		Seed:          bf.rounds.pick(),
		DryRun:        bf.rounds.dryRun,
		CPUProfile:    bf.cpuProfile,
		Format:        benchreport.FormatMarkdown,
		Output:        bf.output,
		OutputFormat:  bf.format,
		Logger:        logger,
		Stdout:        stdout,
		Stderr:        stderr,
	}
	if bf.setFormat && bf.output == "" {
		o.Format = bf.format
	}
	if bf.setListen {
		o.Serve = func(ctx context.Context, stop context.CancelFunc) ([]event.Sink, prometheus.Registerer, func(), error) {
			return serveMetrics(ctx, stop, f, logger)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return bench.Run(ctx, o)
}

// loadBench reads --bench.file or builds a one-scenario bench from the quick
// flags, then applies --kafka.brokers; the Source is the bench's text.
func loadBench(f *flags) (*spec.Bench, bench.Source, error) {
	bf := f.bench
	quick := bf.setNum || bf.setSize || bf.setAcks || bf.setParts
	var b *spec.Bench
	var src bench.Source
	var err error
	switch {
	case bf.file != "" && quick:
		return nil, src, errors.New("--bench.file and the quick flags (--bench.num-records, --bench.record-size, --bench.acks, --bench.partitions) are exclusive: put the settings in the file")
	case bf.file != "":
		b, src, err = bench.Load(bf.file)
	case quick:
		q := spec.NewQuick(bf.numRecords, bf.recordSize, bf.partitions, bf.acks)
		b, err = q.Bench()
		if err != nil {
			err = fmt.Errorf("command line: %w", err)
		}
		src = bench.QuickSource(q)
	default:
		return nil, src, errors.New("give --bench.file FILE, or quick flags such as --bench.num-records and --bench.record-size")
	}
	if err != nil {
		return nil, src, err
	}
	if f.setBrokers {
		b.Kafka.Kafka.Brokers = f.overrides().Brokers
	}
	return b, src, nil
}

// runReport is "bench report FILE.json": bench.Report of the flags.
func runReport(bf *benchFlags, stdout, stderr io.Writer) int {
	o := bench.ReportOptions{
		Name:      program + " " + benchCommand + " " + reportCommand,
		Result:    bf.resultFile,
		BenchFile: bf.file,
		Output:    bf.output,
		Stdout:    stdout,
		Stderr:    stderr,
	}
	if bf.setFormat {
		o.Format = bf.format
	}
	return bench.Report(o)
}

// serveMetrics starts the exporter as a host agent (no probes of its own)
// and serves its endpoints while the bench runs (bench.Options.Serve): the
// runner's probes report to its sinks (its probe metrics and the landing
// page's ring) and their clients' metrics go to its registry. A
// listener that fails stops the bench: a sweep meant to be watched should
// not run unwatched.
func serveMetrics(ctx context.Context, cancel context.CancelFunc, f *flags, logger *slog.Logger) (sinks []event.Sink, reg prometheus.Registerer, shutdown func(), err error) {
	cfg, err := config.Parse(nil)
	if err != nil {
		return nil, nil, nil, err
	}
	registry := prometheus.NewRegistry()
	exp := exporter.New(registry, logger)
	if f.setHostFlag {
		cfg.Host.Enabled = f.hostEnabled
	}
	res, err := config.Resolve(cfg, "") // no kafka block: nothing to read
	if err != nil {
		return nil, nil, nil, err
	}
	if err := exp.Apply(ctx, res); err != nil { // host metrics; the probes are the runner's
		return nil, nil, nil, err
	}

	errs, stop := serve(f, exp.Handler(exporter.HandlerOpts{TelemetryPath: f.telemetryPath, Version: version.Version, Pprof: f.pprof}), logger)
	go func() {
		if err := <-errs; err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("serving metrics failed; stopping the bench", "err", err)
			cancel()
		}
	}()
	return exp.ProbeSinks(), registry, func() { _ = stop() }, nil
}
