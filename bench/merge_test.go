package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	benchreport "github.com/kafka-bench/kafka_bench_exporter/bench/report"
	"github.com/kafka-bench/kafka_bench_exporter/bench/result"
	"github.com/kafka-bench/kafka_bench_exporter/bench/workers"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

// A sweep of one worker merges from the results topic and from the
// worker's JSON file into one process's lines and table; the HTML page
// shows the bench file. A worker the merge waits for and lacks is named
// missing, and fails it; settings it cannot use are bad input.
func TestMergeOfAWorkersSweep(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "bench.yml")
	const text = "num_records: 200\ndefaults: {record_size: 100, create_topic: {partitions: 2}}\n"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	b, src, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	brokers := probetest.Kfake(t, 1)
	b.Kafka.Kafka.Brokers = brokers
	start := time.Now().UTC().Truncate(time.Second)
	saved := filepath.Join(dir, "worker-0.json")
	var stdout, stderr bytes.Buffer
	o := Options{Name: "prog bench", Bench: b, Source: src, Format: benchreport.FormatMarkdown, Output: saved, OutputFormat: benchreport.FormatJSON,
		Worker: &workers.Worker{Workers: 1, StartAt: start, SweepName: "one", ResultsTopic: workers.DefaultResultsTopic},
		Logger: slog.New(slog.DiscardHandler), Stdout: &stdout, Stderr: &stderr}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if code := Run(ctx, o); code != ExitOK {
		t.Fatalf("worker: exit code %d; stderr:\n%s\nstdout:\n%s", code, &stderr, &stdout)
	}

	merge := func(m MergeOptions) (int, string, string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		m.Name, m.ResultsTopic, m.Timeout, m.Format, m.Stdout, m.Stderr = "prog bench merge", workers.DefaultResultsTopic, 10*time.Second, benchreport.FormatMarkdown, &stdout, &stderr
		if m.Workers == 0 {
			m.Workers = 1
		}
		return Merge(ctx, m), stdout.String(), stderr.String()
	}
	page := filepath.Join(dir, "merged.html")
	code, out, errs := merge(MergeOptions{SweepName: "one", StartAt: start.Format(time.RFC3339), BenchFile: file, Brokers: brokers,
		Output: page, OutputFormat: benchreport.FormatHTML})
	if code != ExitOK || !strings.Contains(out, "200 records sent,") || !strings.Contains(out, "| ok |") {
		t.Fatalf("merge from the topic: exit %d, want %d with the ProducerPerformance line and the table\nstderr:\n%s\nstdout:\n%s", code, ExitOK, errs, out)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	section, err := benchreport.DataSection(html)
	if err != nil {
		t.Fatal(err)
	}
	var data struct {
		BenchFile result.FileText `json:"bench_file"`
	}
	if err := json.Unmarshal(section, &data); err != nil || data.BenchFile.Name != file || data.BenchFile.Text != text {
		t.Errorf("the page's bench file: %+v (%v), want %s's text", data.BenchFile, err, file)
	}

	if code, out, errs := merge(MergeOptions{Files: []string{saved}}); code != ExitOK || !strings.Contains(out, "200 records sent,") {
		t.Errorf("merge of the file: exit %d, want %d with the ProducerPerformance line\nstderr:\n%s\nstdout:\n%s", code, ExitOK, errs, out)
	}
	if code, _, errs := merge(MergeOptions{Files: []string{saved}, Workers: 2, WorkersSet: true}); code != ExitFailed || !strings.Contains(errs, "prog bench merge: missing: worker 1") {
		t.Errorf("merge of 2 workers from 1 file: exit %d, want %d and worker 1 missing; stderr:\n%s", code, ExitFailed, errs)
	}
	for _, c := range []struct {
		o    MergeOptions
		want string
	}{
		{MergeOptions{Workers: -1}, "prog bench merge: --workers=-1: must be at least 1\n"},
		{MergeOptions{SweepName: "one"}, "prog bench merge: no Kafka brokers to read --results.topic=kafka-bench-results from: set --kafka.brokers or --bench.file\n"},
		{MergeOptions{Brokers: brokers}, "prog bench merge: give --run (or --start-at) to read from --results.topic=kafka-bench-results, or the workers' JSON files\n"},
		{MergeOptions{Brokers: brokers, SweepName: "one", StartAt: "noon"}, "prog bench merge: --start-at=noon: not an RFC 3339 time such as 2026-01-02T15:04:05Z\n"},
		{MergeOptions{Files: []string{saved}, BenchFile: filepath.Join(dir, "none.yml")}, "prog bench merge: --bench.file: open " + filepath.Join(dir, "none.yml") + ": no such file or directory\n"},
		{MergeOptions{SweepName: "one", BenchFile: filepath.Join(dir, "none.yml")}, "prog bench merge: --bench.file: open " + filepath.Join(dir, "none.yml") + ": no such file or directory\n"},
	} {
		if code, _, errs := merge(c.o); code != ExitBadInput || errs != c.want {
			t.Errorf("%+v: exit %d, stderr %q; want %d, %q", c.o, code, errs, ExitBadInput, c.want)
		}
	}
}
