package bench

import (
	"context"
	"fmt"
	"io"
	"time"

	benchreport "github.com/kafka-bench/kafka_bench_exporter/bench/report"
	"github.com/kafka-bench/kafka_bench_exporter/bench/workers"
	"github.com/kafka-bench/kafka_bench_exporter/config"
)

// MergeOptions are the settings of "bench merge": a sweep's results, from
// the results topic or from the workers' JSON files, merged into the output
// of one process's sweep.
type MergeOptions struct {
	// Name heads every line Merge writes to Stderr ("program bench merge").
	Name string
	// Files are the workers' JSON results; without them, ResultsTopic is
	// read.
	Files []string
	// Workers is the number of workers to wait for; with Files and not
	// WorkersSet, the number the files hold.
	Workers    int
	WorkersSet bool
	// ResultsTopic, SweepName and StartAt (RFC 3339; empty: the newest
	// sweep of SweepName) name the results to read, Timeout bounds the
	// wait for them.
	ResultsTopic, SweepName, StartAt string
	Timeout                          time.Duration
	// BenchFile, when set, is the bench file: its kafka section is the
	// cluster holding ResultsTopic, and an HTML page shows it.
	BenchFile string
	// Brokers, when not nil, replace the brokers of that cluster.
	Brokers []string
	// Format is the table's on Stdout; Output, when set, is a file that
	// gets the results in OutputFormat (one of benchreport.Formats).
	Format, Output, OutputFormat string
	Stdout, Stderr               io.Writer
}

// Merge merges a sweep's results and writes them as one process's sweep
// writes its own: each run's lines, the table and the output file. It
// returns the exit code: ExitOK, ExitBadInput for settings or files it
// refuses, ExitFailed when the results cannot be had (ctx ends the wait
// for them), a worker is missing or a scenario failed.
func Merge(ctx context.Context, o MergeOptions) int {
	fail := func(code int, err error) int {
		say(o.Stderr, "%s: %v\n", o.Name, err)
		return code
	}
	if o.Workers < 1 {
		return fail(ExitBadInput, fmt.Errorf("--workers=%d: must be at least 1", o.Workers))
	}
	var sweep *workers.Sweep
	var src Source // BenchFile's, for an HTML page
	var err error
	if files := o.Files; len(files) > 0 {
		if sweep, err = workers.ReadSweepFiles(files); err != nil {
			return fail(ExitBadInput, err)
		}
		if !o.WorkersSet {
			o.Workers = max(sweep.Workers(), 1)
		}
		if o.BenchFile != "" { // for the HTML page; given and unreadable, refused as bad input
			if src, err = ReadSource(o.BenchFile); err != nil {
				return fail(ExitBadInput, fmt.Errorf("--bench.file: %w", err))
			}
		}
	} else {
		var k config.Cluster
		if k, src, err = o.kafka(); err != nil {
			return fail(ExitBadInput, err)
		}
		if o.SweepName == "" {
			return fail(ExitBadInput, fmt.Errorf("give --run (or --start-at) to read from --results.topic=%s, or the workers' JSON files", o.ResultsTopic))
		}
		ctx, cancel := context.WithTimeout(ctx, o.Timeout)
		defer cancel()
		var start time.Time // zero: the newest sweep of SweepName
		if o.StartAt != "" {
			if start, err = time.Parse(time.RFC3339, o.StartAt); err != nil {
				return fail(ExitBadInput, fmt.Errorf("--start-at=%s: not an RFC 3339 time such as 2026-01-02T15:04:05Z", o.StartAt))
			}
		}
		if sweep, err = workers.CollectSweep(ctx, k, o.ResultsTopic, o.SweepName, start, o.Workers); err != nil {
			return fail(ExitFailed, err)
		}
	}
	for _, err := range sweep.Problems() {
		say(o.Stderr, "%s: skipped: %v\n", o.Name, err)
	}
	m, err := sweep.Merge(o.Workers)
	if err != nil {
		return fail(ExitFailed, err)
	}
	for _, r := range m.Results {
		PrintResult(o.Stdout, r, 1)
	}
	say(o.Stdout, "\n")
	if err := writeMerged(o.Stdout, o.Format, m, src); err != nil {
		return fail(ExitFailed, err)
	}
	if o.Output != "" {
		err := WriteFile(o.Output, func(w io.Writer) error { return writeMerged(w, o.OutputFormat, m, src) })
		if err != nil {
			return fail(ExitFailed, err)
		}
	}
	for _, l := range m.Notes {
		say(o.Stderr, "%s: %s\n", o.Name, l)
	}
	code := ExitOK
	for _, l := range m.Missing {
		say(o.Stderr, "%s: missing: %s\n", o.Name, l)
		code = ExitFailed
	}
	for _, r := range m.Results {
		if r.Failed() {
			code = ExitFailed
		}
	}
	return code
}

// kafka is the cluster holding the results topic: BenchFile's kafka
// section, with Brokers replacing its brokers; and BenchFile's Source.
func (o *MergeOptions) kafka() (config.Cluster, Source, error) {
	var k config.Cluster
	k.Kafka.SetDefaults()
	var src Source
	if o.BenchFile != "" {
		b, read, err := Load(o.BenchFile)
		if err != nil {
			return k, src, fmt.Errorf("--bench.file: %w", err)
		}
		k, src = b.Kafka, read
	}
	if o.Brokers != nil {
		k.Kafka.Brokers = o.Brokers
	}
	if len(k.Kafka.Brokers) == 0 {
		return k, src, fmt.Errorf("no Kafka brokers to read --results.topic=%s from: set --kafka.brokers or --bench.file", o.ResultsTopic)
	}
	return k, src, nil
}

// writeMerged writes the merged results like one process's; an HTML page
// shows the bench file of src.
func writeMerged(w io.Writer, format string, m *workers.Merged, src Source) error {
	return benchreport.Write(w, format, benchreport.Report{ParamKeys: m.ParamKeys, Results: m.Results, File: src.Text()})
}
