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
	"runtime/pprof"
	"syscall"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/promslog"
	"github.com/prometheus/common/version"

	benchreport "github.com/kafka-bench/kafka_bench_exporter/bench/report"
	"github.com/kafka-bench/kafka_bench_exporter/bench/result"
	benchrun "github.com/kafka-bench/kafka_bench_exporter/bench/run"
	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/bench/workers"
	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/embedded"
	"github.com/kafka-bench/kafka_bench_exporter/exporter"
	"github.com/kafka-bench/kafka_bench_exporter/probes"
)

const benchCommand = "bench"

// Exit codes of the bench command.
const (
	exitOK       = 0
	exitFailed   = 1 // a scenario failed or the sweep was interrupted
	exitBadInput = 2
)

// benchFlags are the bench command's own flags; --kafka.brokers,
// --collector.host, the --web.* and the log flags are the application's
// (both commands accept them).
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
	action, resultFile                 string // bench report FILE.json
	cpuProfile                         string
	rounds                             roundFlags
	sweep                              workerFlags
}

func addBenchCommand(app *kingpin.Application) *benchFlags {
	bf := &benchFlags{}
	cmd := app.Command(benchCommand, "Run a one-shot benchmark sweep (every scenario of a bench file, or of the quick flags) with the probe engine and print ProducerPerformance/ConsumerPerformance lines and a table.")
	cmd.Flag("bench.file", "YAML bench file: kafka, defaults (probe keys), num_records or duration, warmup_records, rate, delete_topics, drain_timeout, consume_only, hosts, rounds, baseline, find_max_rate, restart (static broker settings through rolling restarts), scenarios, matrix (probe keys, broker.<name>, broker.<id>.<name>, topic.<name>). Required unless the quick flags below are given.").StringVar(&bf.file)
	cmd.Flag("bench.num-records", "Quick one-scenario bench: records to produce.").IsSetByUser(&bf.setNum).Default("1000000").Int64Var(&bf.numRecords)
	cmd.Flag("bench.record-size", "Quick one-scenario bench: record size in bytes.").IsSetByUser(&bf.setSize).Default(fmt.Sprint(config.DefaultRecordSize)).IntVar(&bf.recordSize)
	cmd.Flag("bench.acks", "Quick one-scenario bench: acks (0, 1 or all).").IsSetByUser(&bf.setAcks).Default("all").StringVar(&bf.acks)
	cmd.Flag("bench.partitions", "Quick one-scenario bench: partitions of the topic.").IsSetByUser(&bf.setParts).Default(fmt.Sprint(config.DefaultPartitions)).Int32Var(&bf.partitions)
	cmd.Flag("bench.embedded", "Bench the in-process fake cluster when no brokers are given (for tests only: it measures nothing real).").BoolVar(&bf.embedded)
	cmd.Flag("hosts-required", "Fail a scenario (exit 1) when a machine of the bench file's hosts cannot be scraped, instead of reporting it unreachable.").BoolVar(&bf.hostsRequired)
	cmd.Flag("output", "Also write the results to this file.").StringVar(&bf.output)
	cmd.Flag("cpuprofile", "Write a CPU profile of the whole run (Go's pprof format, for go tool pprof) to this file.").PlaceHolder("FILE").StringVar(&bf.cpuProfile)
	cmd.Flag("format", "Format of --output (and of stdout's table when given): markdown, csv, json or html (a self-contained page with charts).").IsSetByUser(&bf.setFormat).Default(benchreport.FormatMarkdown).EnumVar(&bf.format, benchreport.Formats...)
	addReportArgs(cmd, bf)
	addRoundFlags(cmd, &bf.rounds)
	addWorkerFlags(cmd, &bf.sweep)
	// Serving /metrics is optional in bench mode: only when asked for.
	app.GetFlag("web.listen-address").IsSetByUser(&bf.setListen)
	return bf
}

// runBench runs the bench command; see the exit codes above.
func runBench(f *flags, stdout, stderr io.Writer) int {
	bf := f.bench
	switch bf.action {
	case reportAction:
		return runReport(bf, stdout, stderr)
	case mergeAction:
		return runMerge(f, stdout, stderr)
	}
	b, err := loadBench(f)
	var worker *workers.Worker
	if err == nil {
		worker, err = bf.sweep.worker()
	}
	if err == nil && worker != nil {
		err = worker.Check(b)
	}
	if err != nil {
		say(stderr, "%s %s: %v\n", program, benchCommand, err)
		return exitBadInput
	}
	logger := promslog.New(&f.log)
	if bf.cpuProfile != "" {
		stopProfile, err := startCPUProfile(bf.cpuProfile)
		if err != nil {
			say(stderr, "%s %s: --cpuprofile: %v\n", program, benchCommand, err)
			return exitBadInput
		}
		defer stopProfile()
	}

	if bf.embedded {
		if len(b.Kafka.Kafka.Brokers) > 0 {
			say(stderr, "%s %s: --bench.embedded and brokers (%v) both given: choose one\n", program, benchCommand, b.Kafka.Kafka.Brokers)
			return exitBadInput
		}
		emb, err := embedded.Start(logger)
		if err != nil {
			say(stderr, "%s %s: %v\n", program, benchCommand, err)
			return exitFailed
		}
		defer emb.Close()
		b.Kafka.Kafka.Brokers = emb.Brokers()
	}
	if len(b.Kafka.Kafka.Brokers) == 0 {
		say(stderr, "%s %s: no Kafka brokers: set --kafka.brokers or kafka.brokers in the bench file "+
			"(benchmarking the in-process fake cluster measures nothing; --bench.embedded does it anyway, for tests)\n", program, benchCommand)
		return exitBadInput
	}
	// The bench file's kafka block is warned about as the daemon's is.
	for _, w := range (config.Section{Key: "kafka", Kafka: b.Kafka.Kafka}).Warnings() {
		logger.Warn(w)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	seed := bf.rounds.pickSeed(b, stderr)
	if bf.rounds.dryRun {
		return plan(ctx, &benchrun.Runner{Logger: logger, Seed: seed}, b, stdout, stderr)
	}

	// Unwatched, the probes' metrics go to a registry nobody reads; with
	// --web.listen-address, to the exporter that serves them.
	metrics := probes.NewMetrics(prometheus.NewRegistry())
	var clientMetrics prometheus.Registerer
	if bf.setListen {
		exp, reg, shutdown, err := serveMetrics(ctx, cancel, f, logger)
		if err != nil {
			say(stderr, "%s %s: %v\n", program, benchCommand, err)
			return exitBadInput
		}
		defer shutdown()
		metrics, clientMetrics = exp.ProbeMetrics(), reg
	}

	runner := &benchrun.Runner{
		Metrics:    metrics,
		Registerer: clientMetrics,
		Logger:     logger,
		Progress:   stderr,
		OnResult:   func(r result.Result) { printResult(stdout, r, b.Rounds) },
		Seed:       seed,
	}
	if worker != nil { // a nil *workers.Worker is no run.Share
		runner.Share = worker
	}
	runner.HostsRequired = bf.hostsRequired
	results, runErr := runner.Run(ctx, b)

	format := benchreport.FormatMarkdown
	if bf.setFormat && bf.output == "" {
		format = bf.format
	}
	say(stdout, "\n")
	if err := writeResults(stdout, format, bf, b, seed, results); err != nil {
		say(stderr, "%s %s: %v\n", program, benchCommand, err)
		return exitFailed
	}
	if bf.output != "" {
		if err := writeOutput(bf, b, seed, results); err != nil {
			say(stderr, "%s %s: %v\n", program, benchCommand, err)
			return exitFailed
		}
	}
	code := exitOK
	for _, r := range results {
		if r.Failed() {
			say(stderr, "%s %s: scenario %q failed: %s\n", program, benchCommand, r.Name(), r.Err)
			code = exitFailed
		}
	}
	if runErr != nil {
		say(stderr, "%s %s: stopped after %d of %d runs: %v\n", program, benchCommand, len(results), len(b.Scenarios)*b.Rounds, runErr)
		code = max(code, runErrCode(runErr))
	}
	return code
}

// loadBench reads --bench.file or builds a one-scenario bench from the quick
// flags, then applies --kafka.brokers.
func loadBench(f *flags) (*spec.Bench, error) {
	bf := f.bench
	quick := bf.setNum || bf.setSize || bf.setAcks || bf.setParts
	var b *spec.Bench
	var err error
	switch {
	case bf.file != "" && quick:
		return nil, errors.New("--bench.file and the quick flags (--bench.num-records, --bench.record-size, --bench.acks, --bench.partitions) are exclusive: put the settings in the file")
	case bf.file != "":
		b, err = spec.Load(bf.file)
	case quick:
		b, err = quickBench(bf).Bench()
		if err != nil {
			err = fmt.Errorf("command line: %w", err)
		}
	default:
		return nil, errors.New("give --bench.file FILE, or quick flags such as --bench.num-records and --bench.record-size")
	}
	if err != nil {
		return nil, err
	}
	if f.setBrokers {
		b.Kafka.Kafka.Brokers = f.overrides().Brokers
	}
	return b, nil
}

// quickBench is the bench the quick flags stand for.
func quickBench(bf *benchFlags) spec.Quick {
	return spec.NewQuick(bf.numRecords, bf.recordSize, bf.partitions, bf.acks)
}

func printResult(w io.Writer, r result.Result, rounds int) {
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
	if r.Failed() {
		say(w, "FAILED: %s\n", r.Err)
	}
}

func writeOutput(bf *benchFlags, b *spec.Bench, seed uint64, results []result.Result) error {
	return writeFile(bf.output, func(w io.Writer) error { return writeResults(w, bf.format, bf, b, seed, results) })
}

// serveMetrics starts the exporter as a host agent (no probes of its own)
// and serves its endpoints while the bench runs: the runner's probes publish
// on its probe metrics and its registry. A listener that fails stops the
// bench: a sweep meant to be watched should not run unwatched.
func serveMetrics(ctx context.Context, cancel context.CancelFunc, f *flags, logger *slog.Logger) (exp *exporter.Exporter, reg *prometheus.Registry, shutdown func(), err error) {
	cfg, err := config.Parse(nil)
	if err != nil {
		return nil, nil, nil, err
	}
	reg = prometheus.NewRegistry()
	exp = exporter.New(reg, logger)
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
	return exp, reg, func() { _ = stop() }, nil
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
