// Command kafka_bench_exporter runs continuous Kafka producer/consumer
// benchmark probes and exposes their measurements to Prometheus.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/promslog"
	promslogflag "github.com/prometheus/common/promslog/flag"
	"github.com/prometheus/common/version"
	"github.com/prometheus/exporter-toolkit/web"
	"github.com/prometheus/exporter-toolkit/web/kingpinflag"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/embedded"
	"github.com/kafka-bench/kafka_bench_exporter/exporter"
	"github.com/kafka-bench/kafka_bench_exporter/kclient"
)

const program = "kafka_bench_exporter"

// shutdownTimeout: SIGTERM must end the process within 10 s; probes flush
// and commit within it.
const shutdownTimeout = 9 * time.Second

func main() {
	stampVersion()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// flags are every command-line setting; explicit-ness matters for the
// overrides, so each quick-path flag records whether the user set it.
type flags struct {
	web           *web.FlagConfig
	telemetryPath string
	configFile    string
	propsFile     string
	configCheck   bool
	lifecycle     bool
	pprof         bool
	log           promslog.Config

	brokers                                  string
	rate                                     float64
	recordSize                               int
	acks, topic                              string
	partitions                               int32
	replication                              int16
	hostEnabled, probesEnabled               bool
	setBrokers, setRate, setSize, setAcks    bool
	setTopic, setParts, setRepl, setHostFlag bool

	command string // "run" (the default), "bench run" (bench's default), "bench report" or "bench merge"
	bench   *benchFlags
}

// usageTemplate is kingpin's default with every command listed, each with
// its own flags under it, and then its subcommands (kingpin lists only the
// innermost commands, each without flags): the top-level --help shows the
// daemon's flags and bench's too; `bench --help` shows only the flags bench
// accepts.
var usageTemplate = strings.Replace(kingpin.DefaultUsageTemplate,
	"{{range .FlattenedCommands -}}\n{{if not .Hidden -}}\n  {{.FullCommand}}{{if .Default}}*{{end}}{{template \"FormatCommand\" .}}\n{{.Help|Wrap 4}}\n{{end -}}\n{{end -}}",
	"{{range .Commands -}}\n{{if not .Hidden -}}\n  {{.FullCommand}}{{if .Default}}*{{end}}{{template \"FormatCommand\" .}}\n{{.Help|Wrap 4}}\n"+
		"{{with .Flags|FlagsToTwoColumns}}{{FormatTwoColumnsWithIndent . 4 2}}\n{{end}}{{template \"FormatCommands\" .}}{{end -}}\n{{end -}}", 1)

// unknownFlagRE finds the flag of kingpin's "unknown long flag" error.
var unknownFlagRE = regexp.MustCompile(`unknown long flag '--(?:no-)?([^'=]+)'`)

// parseFlags parses the command line: flags both commands accept (web, log,
// --kafka.brokers, --collector.host) on the application, the daemon's own
// (--config.*, --probe.*) on `run`, the default command, and bench's on
// `bench`.
func parseFlags(args []string, stderr io.Writer) (*flags, error) {
	f := &flags{log: promslog.Config{}}
	app := newApp(f, stderr)
	cmd, err := app.Parse(args)
	if err != nil {
		if m := unknownFlagRE.FindStringSubmatch(err.Error()); m != nil && app.GetCommand("run").GetFlag(m[1]) != nil {
			err = fmt.Errorf("%w: --%s is a flag of the exporter daemon (run); bench reads --bench.file or the --bench.* quick flags", err, m[1])
		}
		return nil, err
	}
	f.command = cmd
	return f, nil
}

// newApp is the command-line model: docs/reference/flags.md is generated
// from it (reference_test.go).
func newApp(f *flags, stderr io.Writer) *kingpin.Application {
	app := kingpin.New(program, "Continuous Kafka producer/consumer benchmark probes, exported for Prometheus.")
	app.UsageWriter(stderr)
	app.ErrorWriter(stderr)
	app.UsageTemplate(usageTemplate)
	app.Version(version.Print(program))
	app.HelpFlag.Short('h')
	f.web = kingpinflag.AddFlags(app, ":10092")
	app.Flag("web.telemetry-path", "Path under which to expose metrics.").Default("/metrics").StringVar(&f.telemetryPath)
	app.Flag("web.enable-pprof", "Serve Go's profiles under /debug/pprof/ (and link them from the landing page).").BoolVar(&f.pprof)
	app.Flag("kafka.brokers", "Comma-separated bootstrap brokers; replaces kafka.brokers of the file. Empty: start an embedded test cluster.").IsSetByUser(&f.setBrokers).StringVar(&f.brokers)
	app.Flag("collector.host", "Export host CPU, memory, disk and network metrics; replaces host.enabled of the file.").IsSetByUser(&f.setHostFlag).Default("true").BoolVar(&f.hostEnabled)
	promslogflag.AddFlags(app, &f.log)

	runCmd := app.Command("run", "Run the exporter daemon (the default command).").Default()
	runCmd.Flag("config.file", "YAML configuration file (probes, Kafka connection, host metrics). Optional.").StringVar(&f.configFile)
	runCmd.Flag("kafka.properties-file", "Kafka client properties file, as Kafka's tools take it (security, producer and consumer keys); replaces kafka.properties_file of --config.file. Relative to the working directory. Without --config.file its producer and consumer keys apply to the default probe.").StringVar(&f.propsFile)
	runCmd.Flag("web.enable-lifecycle", "Enable reloading --config.file by HTTP request (POST or PUT /-/reload), as Prometheus' flag of the same name; without it they answer 403. SIGHUP reloads either way.").BoolVar(&f.lifecycle)
	runCmd.Flag("config.check", "Validate the configuration, print it with defaults filled and secrets redacted, and exit 0 (valid) or 1, without connecting.").BoolVar(&f.configCheck)
	runCmd.Flag("probe.rate", "Records per second of the default probe (0 = as fast as possible).").IsSetByUser(&f.setRate).Default(fmt.Sprint(config.DefaultRate)).Float64Var(&f.rate)
	runCmd.Flag("probe.record-size", "Record value size in bytes of the default probe.").IsSetByUser(&f.setSize).Default(fmt.Sprint(config.DefaultRecordSize)).IntVar(&f.recordSize)
	runCmd.Flag("probe.acks", "acks of the default probe: 0, 1 or all.").IsSetByUser(&f.setAcks).Default("all").StringVar(&f.acks)
	runCmd.Flag("probe.topic", "Topic of the default probe.").IsSetByUser(&f.setTopic).Default(config.DefaultTopicPrefix + config.DefaultProbeName).StringVar(&f.topic)
	runCmd.Flag("probe.partitions", "Partitions of the default probe's topic when it is created.").IsSetByUser(&f.setParts).Default(fmt.Sprint(config.DefaultPartitions)).Int32Var(&f.partitions)
	runCmd.Flag("probe.replication-factor", "Replication factor of the default probe's topic when it is created (-1: broker default).").IsSetByUser(&f.setRepl).Default("-1").Int16Var(&f.replication)
	runCmd.Flag("probes", "Run probes; --no-probes runs only the host collector (and the configuration watcher when brokers are set): host-agent mode, as probes: [] in the file.").Default("true").BoolVar(&f.probesEnabled)
	f.bench = addBenchCommand(app)
	return app
}

func (f *flags) overrides() config.Overrides {
	o := config.Overrides{PropertiesFile: f.propsFile}
	if f.setBrokers {
		o.Brokers = []string{}
		for b := range strings.SplitSeq(f.brokers, ",") {
			if b = strings.TrimSpace(b); b != "" {
				o.Brokers = append(o.Brokers, b)
			}
		}
	}
	if f.setHostFlag {
		o.HostEnabled = &f.hostEnabled
	}
	o.NoProbes = !f.probesEnabled
	if f.setRate {
		o.ProbeRate = &f.rate
	}
	if f.setSize {
		o.ProbeRecordSize = &f.recordSize
	}
	if f.setAcks {
		o.ProbeAcks = &f.acks
	}
	if f.setTopic {
		o.ProbeTopic = &f.topic
	}
	if f.setParts {
		o.ProbePartitions = &f.partitions
	}
	if f.setRepl {
		o.ProbeReplication = &f.replication
	}
	return o
}

func run(args []string, stdout, stderr *os.File) int {
	f, err := parseFlags(args, stderr)
	if err != nil {
		say(stderr, "%s: %v\n", program, err)
		return 2
	}
	switch f.command {
	case benchCommand + " " + runCommand:
		return runBench(f, stdout, stderr)
	case benchCommand + " " + reportCommand:
		return runReport(f.bench, stdout, stderr)
	case benchCommand + " " + mergeCommand:
		return runMerge(f, stdout, stderr)
	}
	cfg, err := config.Load(f.configFile, f.overrides(), kclient.Check)
	if f.configCheck {
		return checkConfig(cfg, err, stdout, stderr)
	}
	if err != nil {
		say(stderr, "%s: invalid configuration: %v\n", program, err)
		return 1
	}
	logger := promslog.New(&f.log)
	logger.Info("starting "+program, "version", version.Info(), "build_context", version.BuildContext())

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	var emb *embedded.Cluster
	if cfg.Config.HostAgent() {
		logger.Info("host-agent mode: no probes; serving host metrics", "brokers", cfg.Config.Kafka.Brokers)
	} else if len(cfg.Config.Kafka.Brokers) == 0 {
		if emb, err = embedded.Start(logger); err != nil {
			logger.Error("cannot start the embedded cluster", "err", err)
			return 1
		}
		defer emb.Close()
	}
	withBrokers := func(c *config.Resolved) *config.Resolved {
		if len(c.Config.Kafka.Brokers) == 0 && emb != nil {
			return c.WithBrokers(emb.Brokers())
		}
		return c
	}

	reg := prometheus.NewRegistry()
	exp := exporter.New(reg, logger)
	probeCtx, stopProbes := context.WithCancel(context.Background())
	defer stopProbes()
	if err := exp.Apply(probeCtx, withBrokers(cfg)); err != nil {
		logger.Error("cannot apply the configuration", "err", err)
		return 1
	}

	// Without --config.file there is nothing to re-read: POST /-/reload
	// answers 400 (403 without --web.enable-lifecycle, whatever the file)
	// and SIGHUP is logged and ignored.
	var reload func() error
	if f.configFile != "" {
		reload = func() error {
			return exp.Reload(probeCtx, func() (*config.Resolved, error) {
				newCfg, err := config.Load(f.configFile, f.overrides(), kclient.Check)
				if err != nil {
					return nil, err
				}
				return withBrokers(newCfg), nil
			})
		}
	}
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	go func() {
		for range hup {
			if reload == nil {
				logger.Warn("SIGHUP ignored: no --config.file to reload")
				continue
			}
			_ = reload()
		}
	}()

	serveErr, stopServer := serve(f, exp.Handler(exporter.HandlerOpts{TelemetryPath: f.telemetryPath, Version: version.Version, Reload: reload, EnableLifecycle: f.lifecycle, Pprof: f.pprof}), logger)

	select {
	case err := <-serveErr:
		logger.Error("HTTP server failed", "err", err)
		exp.Stop()
		return 1
	case <-ctx.Done():
	}
	logger.Info("shutting down: stopping probes (flush, commit, leave group)")
	done := make(chan struct{})
	go func() {
		exp.Stop()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(shutdownTimeout):
		logger.Warn("probes did not stop in time; exiting anyway")
	}
	if err := stopServer(); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		logger.Warn("HTTP shutdown", "err", err)
	}
	return 0
}

// checkConfig implements --config.check.
func checkConfig(res *config.Resolved, err error, stdout, stderr *os.File) int {
	if err != nil {
		say(stderr, "%s: invalid configuration: %v\n", program, err)
		return 1
	}
	out, err := res.Config.Marshal()
	if err != nil {
		say(stderr, "%s: %v\n", program, err)
		return 1
	}
	say(stdout, "# configuration is valid; effective configuration with defaults:\n%s", out)
	return 0
}
