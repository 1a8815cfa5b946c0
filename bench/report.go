package bench

import (
	"bytes"
	"fmt"
	"io"
	"os"

	benchreport "github.com/kafka-bench/kafka_bench_exporter/bench/report"
	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
)

// ReportOptions are the settings of "bench report": the HTML page of a
// saved result.
type ReportOptions struct {
	// Name heads every line Report writes to Stderr ("program bench report").
	Name string
	// Result is the saved JSON result (from --format=json, with rounds or
	// without).
	Result string
	// BenchFile, when set, is the bench file shown on the page; its
	// parameter keys head the page's columns.
	BenchFile string
	// Format is the format asked for; a report is HTML, so another one is
	// refused. Empty: none asked for.
	Format string
	// Output, when set, is the file of the page; without it, Stdout.
	Output         string
	Stdout, Stderr io.Writer
}

// Report writes the HTML page of a saved result, the same page the run
// would have written with --format=html, and returns its exit code: ExitOK,
// ExitBadInput for a result or bench file that cannot be read or
// rendered, ExitFailed when the page cannot be written.
func Report(o ReportOptions) int {
	fail := func(code int, err error) int {
		say(o.Stderr, "%s: %v\n", o.Name, err)
		return code
	}
	if o.Result == "" {
		return fail(ExitBadInput, fmt.Errorf("give the JSON result: %s FILE.json", o.Name))
	}
	if o.Format != "" && o.Format != benchreport.FormatHTML {
		return fail(ExitBadInput, fmt.Errorf("--format=%s: a report is HTML; convert nothing else", o.Format))
	}
	data, err := os.ReadFile(o.Result)
	if err != nil {
		return fail(ExitBadInput, err)
	}
	var keys []string
	var src Source
	if o.BenchFile != "" {
		if src, err = ReadSource(o.BenchFile); err != nil {
			return fail(ExitBadInput, fmt.Errorf("--bench.file %s cannot be read", o.BenchFile))
		}
		b, err := spec.Parse([]byte(src.text.Text)) // a report reads none of the cluster's files
		if err != nil {
			return fail(ExitBadInput, fmt.Errorf("%s: %w", o.BenchFile, err))
		}
		keys = b.ParamKeys
	}
	// Rendered first: a result that cannot be rendered leaves no file.
	var page bytes.Buffer
	if err := benchreport.RenderHTML(&page, data, keys, src.Text()); err != nil {
		return fail(ExitBadInput, fmt.Errorf("%s: %w", o.Result, err))
	}
	if o.Output == "" {
		if _, err := o.Stdout.Write(page.Bytes()); err != nil {
			return fail(ExitFailed, err)
		}
		return ExitOK
	}
	if err := WriteFile(o.Output, func(w io.Writer) error { _, err := w.Write(page.Bytes()); return err }); err != nil {
		return fail(ExitFailed, err)
	}
	return ExitOK
}
