package main

import (
	"fmt"
	"io"
	"os"

	"github.com/alecthomas/kingpin/v2"

	benchreport "github.com/kafka-bench/kafka_bench_exporter/bench/report"
	"github.com/kafka-bench/kafka_bench_exporter/bench/result"
	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
)

// reportAction is the first argument of "bench report FILE.json".
const reportAction = "report"

func addReportArgs(cmd *kingpin.CmdClause, bf *benchFlags) {
	cmd.Arg("action", `"report": turn the saved JSON result FILE.json (from --format=json, with rounds or without) into the HTML report, on --output or stdout; --bench.file adds the bench file to it. "merge": merge a sweep's worker results (--results.topic and --run, or the workers' JSON files) into one run's lines and table. Both run nothing.`).EnumVar(&bf.action, reportAction, mergeAction)
	cmd.Arg("FILE.json", "JSON result of an earlier sweep (with report; with merge, the first worker's).").StringVar(&bf.resultFile)
}

// runReport is "bench report FILE.json": the HTML page of a saved result,
// the same page the run would have written with --format=html.
func runReport(bf *benchFlags, stdout, stderr io.Writer) int {
	fail := func(code int, err error) int {
		say(stderr, "%s %s %s: %v\n", program, benchCommand, reportAction, err)
		return code
	}
	if bf.resultFile == "" {
		return fail(exitBadInput, fmt.Errorf("give the JSON result: %s %s %s FILE.json", program, benchCommand, reportAction))
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
		if file = benchFileOf(bf); file == nil {
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

// writeResults writes results in one of benchreport.Formats; an HTML page also
// shows the bench file that produced them.
func writeResults(w io.Writer, format string, bf *benchFlags, b *spec.Bench, seed uint64, results []result.Result) error {
	switch {
	case format == benchreport.FormatHTML && b.Rounds > 1: // with each round's value and the verdicts
		return benchreport.WriteRoundsHTML(w, b, seed, results, benchFileOf(bf))
	case format == benchreport.FormatHTML:
		return benchreport.WriteHTML(w, b.ParamKeys, results, benchFileOf(bf))
	case b.Rounds > 1: // the runs and, from minVerdictRounds on, the verdicts
		return benchreport.WriteRounds(w, format, b, seed, results)
	}
	return benchreport.Write(w, format, b.ParamKeys, results)
}

// benchFileOf is --bench.file's text, or the bench file the quick flags
// stand for; nil when neither can be had.
func benchFileOf(bf *benchFlags) *result.FileText {
	if bf.file != "" {
		data, err := os.ReadFile(bf.file)
		if err != nil {
			return nil
		}
		return &result.FileText{Name: bf.file, Text: string(data)}
	}
	data, err := quickBench(bf).YAML()
	if err != nil {
		return nil
	}
	return &result.FileText{Name: "(quick flags)", Text: string(data)}
}
