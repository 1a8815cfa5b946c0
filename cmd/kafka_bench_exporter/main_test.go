package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testenv"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

// runCaptured calls run in-process and returns its exit code, stdout and stderr.
func runCaptured(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	dir := t.TempDir()
	out, err := os.Create(filepath.Join(dir, "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	errf, err := os.Create(filepath.Join(dir, "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	code := run(args, out, errf)
	if err := errors.Join(out.Close(), errf.Close()); err != nil {
		t.Fatal(err)
	}
	o, _ := os.ReadFile(out.Name())
	e, _ := os.ReadFile(errf.Name())
	return code, string(o), string(e)
}

// --config.check rejects every invalid file of the config package with its
// one-line message, and accepts the valid one.
func TestConfigCheck(t *testing.T) {
	files, err := filepath.Glob("../../config/testdata/invalid-*.yml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no invalid config fixtures: %v", err)
	}
	// and the files whose clients franz-go refuses, though config accepts them
	clients, err := filepath.Glob("../../kclient/testdata/invalid-*.yml")
	if err != nil || len(clients) == 0 {
		t.Fatalf("no invalid client fixtures: %v", err)
	}
	files = append(files, clients...)
	for _, f := range files {
		code, _, stderr := runCaptured(t, "--config.check", "--config.file", f)
		if code != 1 {
			t.Errorf("%s: exit %d, want 1", f, code)
		}
		if !strings.HasPrefix(stderr, "kafka_bench_exporter: invalid configuration: "+f+": ") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%s: stderr is not one line naming the file: %q", f, stderr)
		}
	}
	code, stdout, stderr := runCaptured(t, "--config.check", "--config.file", "../../config/testdata/valid-full.yml")
	if code != 0 {
		t.Fatalf("valid config: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"name: acks1-100b", "linger.ms: 5", "name: defaults", "topic: kafka-bench-defaults"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("effective config lacks %q:\n%s", want, stdout)
		}
	}
}

func TestFlagsAndFileCombine(t *testing.T) {
	cases := []struct {
		name     string
		args     []string
		code     int
		contains string
	}{
		{"quick path defines the default probe", []string{"--probe.rate=250", "--probe.acks=1"}, 0, "rate: 250"},
		{"quick path validated like a file", []string{"--probe.rate=-1"}, 1, `command line: probe "default": rate = -1: must be a number >= 0`},
		{"probe flag with a file that has probes", []string{"--config.file=../../config/testdata/valid-full.yml", "--probe.rate=5"}, 1, "--probe.rate given, but ../../config/testdata/valid-full.yml defines probes"},
		{"brokers flag replaces the file's", []string{"--config.file=../../config/testdata/valid-full.yml", "--kafka.brokers=10.0.0.1:9092,10.0.0.2:9092"}, 0, "- 10.0.0.2:9092"},
		{"host flag replaces the file's", []string{"--config.file=../../config/testdata/valid-full.yml", "--no-collector.host"}, 0, "enabled: false"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := runCaptured(t, append([]string{"--config.check"}, c.args...)...)
			if code != c.code {
				t.Fatalf("exit %d, want %d; stderr: %s", code, c.code, stderr)
			}
			if !strings.Contains(stdout+stderr, c.contains) {
				t.Errorf("output lacks %q:\nstdout: %s\nstderr: %s", c.contains, stdout, stderr)
			}
		})
	}
}

// TestEmbeddedQuickStartAndSIGTERM is the README's run command: no brokers,
// so the embedded cluster starts and records flow; SIGTERM exits 0.
func TestEmbeddedQuickStartAndSIGTERM(t *testing.T) {
	bin := binary(t)
	addr := testenv.FreeAddr(t)
	logs := &probetest.Logs{} // read while the process writes
	cmd := exec.Command(bin, "--web.listen-address="+addr, "--probe.rate=200")
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := testenv.StartTied(cmd); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
		}
		if t.Failed() {
			t.Logf("exporter log:\n%s", logs.String())
		}
	}()

	url := "http://" + addr + "/metrics"
	probetest.Eventually(t, 30*time.Second, "records produced and consumed on the embedded cluster", func() (bool, string) {
		f, err := scrape.Get(url)
		if err != nil {
			return false, err.Error()
		}
		p, _ := f.Value("kafka_bench_produced_records_total", "probe", "default")
		c, _ := f.Value("kafka_bench_consumed_records_total", "probe", "default")
		return p > 0 && c > 0, "produced and consumed still 0"
	})
	if !strings.Contains(logs.String(), "EMBEDDED") {
		t.Errorf("no WARN line about the embedded cluster in the log")
	}

	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if _, ok := errors.AsType[*exec.ExitError](err); ok {
			t.Fatalf("exit after SIGTERM: %v", err)
		}
		t.Logf("exited 0 %.1fs after SIGTERM", time.Since(start).Seconds())
	case <-time.After(30 * time.Second):
		t.Fatal("still running 30 s after SIGTERM")
	}
}
