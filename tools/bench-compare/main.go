// Command bench-compare runs the side-by-side measurements of
// docs/benchmarks.md on real Kafka brokers (package kafkatest, the version
// scripts/kafka.sh pins) and prints their Markdown tables:
//
//	go run ./tools/bench-compare vs-kafka [produce] [consume] [steady] [compression] [seeds] [cost]
//	go run ./tools/bench-compare embedded [seconds] [rate ...]
//	go run ./tools/bench-compare footprint [rate:record_size ...]
//	go run ./tools/bench-compare replication [seconds] [rate ...]
//	go run ./tools/bench-compare workers
//	go run ./tools/bench-compare groups
//	go run ./tools/bench-compare catchup
//
// The subcommands:
//
//   - vs-kafka: `kafka_bench_exporter bench` against Kafka's ProducerPerformance
//     and ConsumerPerformance, rounds alternated, round 0 discarded; a steady
//     rate; the bytes the broker stores per payload kind and compression; a
//     seeds-style sweep; the always-on cost of the daemon with a broker stall
//   - embedded: the daemon on its embedded cluster: achieved rate, CPU, RSS, p99
//   - footprint: the daemon's CPU and RSS per rate, optionally beside another
//     program
//   - replication: replication latency across a real MirrorMaker 2
//   - workers: one bench process against two workers at the same total rate,
//     merged
//   - groups: the consumer-group lag collector beside kminion's and
//     kafka_exporter's (binaries given by flag): CPU, requests and wall time
//     per poll, RSS, the lag of every group-partition compared
//   - catchup: the steady probe's end-to-end latency during and outside
//     cold catch-up reads of its own topic, capped and uncapped
//
// Settings are flags of each subcommand (-h lists them); each flag's default
// is the environment variable of the same name in capitals (ROUNDS,
// RECORDS, SIZES, ...), as the scripts/bench-*.sh wrappers have always read
// them. Our results are read from `bench --format json` (bench/result's
// schema), Kafka's from its tools' result lines; medians, percentiles and
// ratios are computed here.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/hostinfo"
	"github.com/kafka-bench/kafka_bench_exporter/internal/kafkatest"
	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testenv"
)

var subcommands = map[string]func(ctx context.Context, args []string) error{
	"vs-kafka":    vsKafka,
	"embedded":    embedded,
	"footprint":   footprint,
	"replication": replication,
	"workers":     workers,
	"groups":      groupsBench,
	"catchup":     catchUpImpact,
}

func main() {
	log.SetFlags(log.Ltime)
	log.SetPrefix("bench-compare: ")
	if len(os.Args) < 2 || subcommands[os.Args[1]] == nil {
		fmt.Fprintln(os.Stderr, "usage: bench-compare vs-kafka|embedded|footprint|replication|workers|groups|catchup [flags] [args]  (each takes -h)")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := subcommands[os.Args[1]](ctx, os.Args[2:])
	stop()
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		log.Print(err)
		os.Exit(1)
	}
}

// workDir is dir, created, or a new temporary directory that cleanup
// removes; dir is kept.
func workDir(dir, pattern string) (string, func(), error) {
	if dir != "" {
		return dir, func() {}, os.MkdirAll(dir, 0o755)
	}
	d, err := os.MkdirTemp("", pattern)
	return d, func() { _ = os.RemoveAll(d) }, err
}

// exporterIn is workDir(dir, pattern) with the exporter built into it.
func exporterIn(ctx context.Context, dir, pattern string) (work, bin string, cleanup func(), err error) {
	if work, cleanup, err = workDir(dir, pattern); err != nil {
		return "", "", nil, err
	}
	log.Printf("building into %s", work)
	if bin, err = build(ctx, work, "./cmd/kafka_bench_exporter"); err != nil {
		cleanup()
		return "", "", nil, err
	}
	return work, bin, cleanup, nil
}

// build builds a package of this repository into dir (run from its root).
func build(ctx context.Context, dir, pkg string) (string, error) {
	if _, err := os.Stat("go.mod"); err != nil {
		return "", fmt.Errorf("run from the repository's root (it builds %s)", pkg)
	}
	out := filepath.Join(dir, filepath.Base(pkg))
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, pkg)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build %s: %w", pkg, err)
	}
	return out, nil
}

// startBroker starts a one-node Kafka; a deleted topic's files go at once
// (not 60 s later, in the middle of a later run).
func startBroker(ctx context.Context) (*kafkatest.Cluster, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute) // a loaded machine starts a JVM slowly
	defer cancel()
	c, err := kafkatest.StartCluster(ctx, kafkatest.Options{Nodes: 1,
		BrokerConfig: map[string]string{"file.delete.delay.ms": "0"}}, log.Printf)
	if err != nil {
		return nil, err
	}
	log.Printf("Kafka %s at %s", c.KafkaVersion(), strings.Join(c.Bootstrap(), ","))
	return c, nil
}

// settle lets the previous run's writes reach the disk before the next run.
func settle() {
	syscall.Sync()
	time.Sleep(time.Second)
}

// report writes the Markdown report to stdout and to a file.
type report struct {
	w   io.Writer
	f   *os.File
	err error // the first failed write
}

func newReport(path string) (*report, error) {
	if path == "" {
		return &report{w: os.Stdout}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &report{w: io.MultiWriter(os.Stdout, f), f: f}, nil
}

func (r *report) say(format string, args ...any) {
	if _, err := fmt.Fprintf(r.w, format+"\n", args...); err != nil && r.err == nil {
		r.err = err
	}
}

// close closes the file; its error is the first failed write's, or Close's.
func (r *report) close() error {
	if r.f != nil {
		if err := r.f.Close(); err != nil && r.err == nil {
			r.err = err
		}
	}
	return r.err
}

// process is a child process the measurements read: its CPU and memory
// (hostinfo), stopped with SIGTERM.
type process struct {
	name   string
	cmd    *exec.Cmd
	log    *os.File
	exited chan error
}

// start starts a command with its output to logPath.
func start(logPath string, cmd *exec.Cmd) (*process, error) {
	lf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = lf, lf
	if err := cmd.Start(); err != nil {
		_ = lf.Close()
		return nil, err
	}
	p := &process{name: filepath.Base(cmd.Path), cmd: cmd, log: lf, exited: make(chan error, 1)}
	go func() { p.exited <- cmd.Wait() }()
	return p, nil
}

// waitFor polls ok every 200 ms until it holds, the process exits, ctx ends
// or 5 minutes pass.
func (p *process) waitFor(ctx context.Context, what string, ok func() bool) error {
	for deadline := time.Now().Add(5 * time.Minute); !ok(); {
		select {
		case err := <-p.exited:
			p.exited <- err
			return fmt.Errorf("%s exited before %s: %w (see %s)", p.name, what, err, p.log.Name())
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: not %s after 5 minutes (see %s)", p.name, what, p.log.Name())
		}
	}
	return nil
}

// stats reads the process's CPU and memory.
func (p *process) stats() (hostinfo.Process, error) { return hostinfo.ReadProcess(p.cmd.Process.Pid) }

// stop sends SIGTERM and waits for the exit (SIGKILL after a minute).
func (p *process) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(time.Minute):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
	_ = p.log.Close()
}

// daemon is the exporter serving /metrics on a free loopback port.
type daemon struct {
	*process
	base string // http://127.0.0.1:port
}

// startDaemon starts the exporter bin with args and waits until /-/ready
// answers 200.
func startDaemon(ctx context.Context, bin, logPath string, args ...string) (*daemon, error) {
	addr, err := testenv.LoopbackAddr()
	if err != nil {
		return nil, err
	}
	p, err := start(logPath, exec.Command(bin, append(args, "--web.listen-address="+addr)...))
	if err != nil {
		return nil, err
	}
	d := &daemon{process: p, base: "http://" + addr}
	if err := p.waitFor(ctx, "ready", func() bool { return httpOK(d.base + "/-/ready") }); err != nil {
		p.stop()
		return nil, err
	}
	return d, nil
}

// metrics scrapes the daemon.
func (d *daemon) metrics() (scrape.Families, error) { return scrape.Get(d.base + "/metrics") }

func httpOK(url string) bool {
	resp, err := http.Get(url) //nolint:gosec,noctx // a loopback URL of our own, polled
	if err != nil {
		return false
	}
	_ = resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// value is the sum of a family's series in a scrape (0 without any).
func value(f scrape.Families, name string) float64 {
	v, _ := f.Value(name)
	return v
}
