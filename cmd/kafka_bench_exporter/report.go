package main

import (
	"fmt"
	"io"
	"os"

	benchreport "github.com/kafka-bench/kafka_bench_exporter/bench/report"
	"github.com/kafka-bench/kafka_bench_exporter/bench/result"
	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
)

// runReport is "bench report FILE.json": the HTML page of a saved result,
// the same page the run would have written with --format=html.
func runReport(bf *benchFlags, stdout, stderr io.Writer) int {
	fail := func(code int, err error) int {
		say(stderr, "%s %s %s: %v\n", program, benchCommand, reportCommand, err)
		return code
	}
	if bf.resultFile == "" {
		return fail(exitBadInput, fmt.Errorf("give the JSON result: %s %s %s FILE.json", program, benchCommand, reportCommand))
	}
	if bf.setFormat && bf.format != benchreport.FormatHTML {
		return fail(exitBadInput, fmt.Errorf("--format=%s: a report is HTML; convert nothing else", bf.format))
	}
	data, err := os.ReadFile(bf.resultFile)
	if err != nil {
		return fail(exitBadInput, err)
	}
	var keys []string
	var file *result.FileText
	if bf.file != "" {
		if file = bf.source().Text(); file == nil {
			return fail(exitBadInput, fmt.Errorf("--bench.file %s cannot be read", bf.file))
		}
		b, err := spec.Parse([]byte(file.Text))
		if err != nil {
			return fail(exitBadInput, fmt.Errorf("%s: %w", bf.file, err))
		}
		keys = b.ParamKeys
	}
	w, closeOut := stdout, func() error { return nil }
	if bf.output != "" {
		fh, err := os.Create(bf.output)
		if err != nil {
			return fail(exitFailed, err)
		}
		w, closeOut = fh, fh.Close
	}
	err = benchreport.RenderHTML(w, data, keys, file)
	if cerr := closeOut(); err == nil {
		err = cerr
	}
	if err != nil {
		return fail(exitBadInput, fmt.Errorf("%s: %w", bf.resultFile, err))
	}
	return exitOK
}
