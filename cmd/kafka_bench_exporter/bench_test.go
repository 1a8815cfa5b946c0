package main

import (
	"encoding/csv"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// runCLI is runCaptured with only errors logged.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runCaptured(t, append(args, "--log.level=error")...)
}

func TestBenchBadInput(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"nothing to run", []string{"bench"}, "give --bench.file FILE"},
		{"no brokers", []string{"bench", "--bench.num-records", "100"}, "no Kafka brokers"},
		{"invalid file", []string{"bench", "--bench.file", "../../bench/spec/testdata/invalid-unknown-scenario-key.yml"},
			`scenario "linger-20": producer.linger.mss = 20: unknown key`},
		{"file and quick flags", []string{"bench", "--bench.file", "x.yml", "--bench.acks", "1"}, "are exclusive"},
		{"daemon flag", []string{"bench", "--bench.embedded", "--probe.rate", "5", "--bench.num-records", "10"}, "--probe.rate is a flag of the exporter daemon (run)"},
		{"embedded and brokers", []string{"bench", "--bench.embedded", "--kafka.brokers", "127.0.0.1:1", "--bench.num-records", "10"}, "choose one"},
		{"invalid quick value", []string{"bench", "--bench.embedded", "--bench.record-size", "10"}, "command line: scenario \"record_size=10,partitions=3,acks=all\": record_size = 10: must be >= 36"},
		{"bad format", []string{"bench", "--bench.num-records", "10", "--format", "xml"}, "enum value must be one of"},
		{"worker index", []string{"bench", "--bench.num-records", "10", "--workers", "3", "--worker-index", "3"}, "--worker-index=3: must be below --workers=3"},
		{"no start", []string{"bench", "--bench.num-records", "10", "--workers", "2"}, "--workers=2: needs --start-at"},
		{"bad start", []string{"bench", "--bench.num-records", "10", "--workers", "2", "--start-at", "noon"}, "--start-at=noon: not an RFC 3339 time"},
		{"rounds", []string{"bench", "--bench.file", "../../bench/spec/testdata/valid-experiment-io-threads.yml", "--workers", "2", "--start-at", "2026-01-02T15:04:05Z"}, "--workers=2: rounds = "},
		{"merge nothing", []string{"bench", "merge"}, "no Kafka brokers to read --results.topic=kafka-bench-results"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, c.args...)
			if code != exitBadInput {
				t.Errorf("exit code %d, want %d; stderr:\n%s", code, exitBadInput, stderr)
			}
			if !strings.Contains(stderr, c.want) {
				t.Errorf("stderr lacks %q:\n%s", c.want, stderr)
			}
		})
	}
}

var producerLineRE = regexp.MustCompile(`(?m)^300 records sent, [0-9.]+ records/sec \([0-9.]+ MB/sec\), [0-9.]+ ms avg latency, [0-9.]+ ms max latency, \d+ ms 50th, \d+ ms 95th, \d+ ms 99th, \d+ ms 99\.9th\.$`)

// TestBenchQuickEmbedded runs the quick one-scenario path on the embedded
// cluster and checks stdout's perf-tool lines and table, and --output.
func TestBenchQuickEmbedded(t *testing.T) {
	out := filepath.Join(t.TempDir(), "results.csv")
	code, stdout, stderr := runCLI(t, "bench", "--bench.embedded", "--bench.num-records", "300", "--bench.record-size", "100",
		"--bench.acks", "1", "--bench.partitions", "2", "--output", out, "--format", "csv")
	if code != exitOK {
		t.Fatalf("exit code %d; stderr:\n%s\nstdout:\n%s", code, stderr, stdout)
	}
	if !producerLineRE.MatchString(stdout) {
		t.Errorf("stdout lacks a ProducerPerformance line for 300 records:\n%s", stdout)
	}
	if !strings.Contains(stdout, "start.time, end.time, data.consumed.in.MB") || !strings.Contains(stdout, "| record_size | partitions | acks |") {
		t.Errorf("stdout lacks the consumer line or the Markdown table:\n%s", stdout)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }() // opened for reading: nothing to lose
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0][0] != "record_size" || recs[1][0] != "100" || recs[1][1] != "2" || recs[1][2] != "1" || recs[1][3] != "300" || recs[1][4] != "300" {
		t.Errorf("CSV output %q: want a header and one row 100,2,1,300,300,...", recs)
	}
}

// TestDefaultCommandUnchanged: without a command the daemon's flags behave
// as before the bench command existed.
func TestDefaultCommandUnchanged(t *testing.T) {
	for _, args := range [][]string{{"--config.check"}, {"run", "--config.check"}} {
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 || !strings.HasPrefix(stdout, "# configuration is valid") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
	code, _, stderr := runCLI(t, "--config.check", "--probe.acks", "2")
	if code != 1 || !strings.Contains(stderr, `producer.acks = "2"`) {
		t.Errorf("invalid --probe.acks: exit %d stderr %q, want 1 and the config error", code, stderr)
	}
}

// TestBenchWarnsAboutItsKafkaSection: the bench file's kafka block gets the
// daemon's warnings about risky settings, and never its password.
func TestBenchWarnsAboutItsKafkaSection(t *testing.T) {
	file := filepath.Join(t.TempDir(), "bench.yml")
	if err := os.WriteFile(file, []byte(`kafka:
  brokers: [127.0.0.1:1]
  sasl: {mechanism: PLAIN, username: u, password: bench-hunter2}
num_records: 10
`), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(binary(t), "bench", "--bench.file", file, "--dry-run").CombinedOutput()
	if err != nil {
		t.Fatalf("bench --dry-run: %v\n%s", err, out)
	}
	if want := `level=WARN source=bench.go`; !strings.Contains(string(out), want) ||
		!strings.Contains(string(out), "kafka.sasl.mechanism PLAIN without kafka.tls.enabled sends the password in clear text") {
		t.Errorf("the bench log lacks the PLAIN-without-TLS warning:\n%s", out)
	}
	if strings.Contains(string(out), "bench-hunter2") {
		t.Errorf("the bench output shows the password:\n%s", out)
	}
}

// TestBenchCPUProfile: --cpuprofile writes Go's pprof profile of the run
// (gzip-compressed protobuf) to the file; a file that cannot be created is
// bad input naming the flag.
func TestBenchCPUProfile(t *testing.T) {
	prof := filepath.Join(t.TempDir(), "cpu.pprof")
	code, stdout, stderr := runCLI(t, "bench", "--bench.embedded", "--bench.num-records", "300", "--bench.record-size", "100",
		"--bench.acks", "1", "--cpuprofile", prof)
	if code != exitOK {
		t.Fatalf("exit code %d; stderr:\n%s\nstdout:\n%s", code, stderr, stdout)
	}
	b, err := os.ReadFile(prof)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Errorf("%s: %d bytes, not a gzip-compressed profile", prof, len(b))
	}
	code, _, stderr = runCLI(t, "bench", "--bench.embedded", "--bench.num-records", "10", "--cpuprofile", filepath.Join(t.TempDir(), "missing", "cpu.pprof"))
	if code != exitBadInput || !strings.Contains(stderr, "--cpuprofile: ") {
		t.Errorf("uncreatable profile: exit %d, stderr %q; want %d naming --cpuprofile", code, stderr, exitBadInput)
	}
}
