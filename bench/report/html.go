package report

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kafka-bench/kafka_bench_exporter/bench/result"
	"github.com/kafka-bench/kafka_bench_exporter/redact"
	"github.com/kafka-bench/kafka_bench_exporter/webassets"
)

// FormatHTML is the self-contained HTML report (RenderHTML).
const FormatHTML = "html"

var (
	//go:embed html/report.html
	reportHTML string
	//go:embed html/report.js
	reportJS string
	//go:embed html/report.css
	reportCSS string

	reportPage = template.Must(template.New("report").Parse(reportHTML))
)

// RenderHTML turns a JSON result (Write's array, or its object for a bench
// of rounds, perhaps saved long ago or merged from several runs) into the
// page Write writes in FormatHTML: the seeds' table, a chart per varying
// parameter, the latency percentile spectra, the host charts and, for
// rounds, each round's value and the verdicts with their intervals, drawn by
// an inlined uPlot, so it opens offline. With nil paramKeys the parameters are
// read from the results. The page holds no secret: the bench file's are
// shown as <secret> (redact.YAML), and so are the credentials of any
// URL in the results, which an older version may have saved.
func RenderHTML(w io.Writer, resultsJSON []byte, paramKeys []string, file *result.FileText) error {
	if file != nil {
		file = &result.FileText{Name: file.Name, Text: redact.YAML(file.Text)}
	}
	resultsJSON, err := redactJSON(resultsJSON)
	if err != nil {
		return err
	}
	data, err := reportDataOf(resultsJSON, paramKeys, file)
	if err != nil {
		return err
	}
	section, err := json.MarshalIndent(data, "", "  ") // escapes <, > and &: safe inside <script>
	if err != nil {
		return err
	}
	var results []json.RawMessage
	_ = json.Unmarshal(data.Results, &results) // checked by reportDataOf
	rounds := 0
	if data.Rounds != nil {
		rounds = data.Rounds.Rounds
	}
	return reportPage.Execute(w, map[string]any{
		"Title":        data.Title,
		"Runs":         len(results),
		"Rounds":       rounds,
		"BenchFile":    file,
		"UPlotVersion": webassets.UPlotVersion,
		"UPlotCSS":     template.CSS(webassets.UPlotCSS),
		"ChartsCSS":    template.CSS(webassets.ChartsCSS),
		"CSS":          template.CSS(reportCSS),
		"Data":         template.JS(section),
		"UPlotJS":      template.JS(webassets.UPlotJS),
		"ChartsJS":     template.JS(webassets.ChartsJS),
		"ReportJS":     template.JS(reportJS),
	})
}

// redactJSON applies redact.Text to every string of a JSON document,
// and redact.Value to the values of keys that name a secret. A
// document without secrets is returned as it is (key order and all); one
// that does not parse too, for reportDataOf to refuse.
func redactJSON(doc []byte) ([]byte, error) {
	if !json.Valid(doc) {
		return doc, nil
	}
	d := json.NewDecoder(bytes.NewReader(doc))
	d.UseNumber() // numbers stay as written
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	changed := false
	var walk func(key string, v any) any
	walk = func(key string, v any) any {
		switch x := v.(type) {
		case string:
			r := redact.Value(key, redact.Text(x))
			changed = changed || r != x
			return r
		case []any:
			for i := range x {
				x[i] = walk(key, x[i])
			}
		case map[string]any:
			for k := range x {
				x[k] = walk(k, x[k])
			}
		}
		return v
	}
	v = walk("", v)
	if !changed {
		return doc, nil
	}
	return json.Marshal(v)
}

// DataSection extracts the data section of a page RenderHTML wrote.
func DataSection(page []byte) ([]byte, error) {
	const open, end = `<script type="application/json" id="report-data">`, `</script>`
	_, rest, ok := bytes.Cut(page, []byte(open))
	if !ok {
		return nil, errors.New("no report-data section in the page")
	}
	section, _, ok := bytes.Cut(rest, []byte(end))
	if !ok {
		return nil, errors.New("report-data section not closed")
	}
	return section, nil
}

// notAResult says what a JSON result looks like.
const notAResult = "not a bench JSON result (an array of scenario objects, or with rounds an object with runs and summary, as --format json writes)"

func reportDataOf(resultJSON []byte, paramKeys []string, file *result.FileText) (*result.ReportData, error) {
	resultsJSON, rounds, err := splitRounds(resultJSON)
	if err != nil {
		return nil, err
	}
	var results []struct {
		Scenario string            `json:"scenario"`
		Params   map[string]string `json:"params"`
	}
	if err := json.Unmarshal(resultsJSON, &results); err != nil {
		return nil, fmt.Errorf("%s: %w", notAResult, err)
	}
	if paramKeys == nil {
		// The order of the scenario names ("record_size=100,acks=1"): JSON
		// objects keep none.
		seen := map[string]bool{}
		add := func(k string) {
			if !seen[k] {
				seen[k] = true
				paramKeys = append(paramKeys, k)
			}
		}
		for _, r := range results {
			if _, ok := r.Params["scenario"]; ok {
				add("scenario")
			}
			for part := range strings.SplitSeq(r.Scenario, ",") {
				if k, _, ok := strings.Cut(part, "="); ok {
					if _, ok := r.Params[k]; ok {
						add(k)
					}
				}
			}
		}
		var rest []string
		for _, r := range results {
			for k := range r.Params {
				if !seen[k] && !slices.Contains(rest, k) {
					rest = append(rest, k)
				}
			}
		}
		slices.Sort(rest)
		paramKeys = append(paramKeys, rest...)
	}
	title := "Kafka bench report"
	if file != nil && file.Name != "" {
		title += ": " + filepath.Base(file.Name)
	}
	if paramKeys == nil {
		paramKeys = []string{}
	}
	return &result.ReportData{Title: title, ParamKeys: paramKeys, BenchFile: file, Rounds: rounds, Results: json.RawMessage(resultsJSON)}, nil
}

// splitRounds returns the runs and the rest of a rounds result, or a plain
// result and nil.
func splitRounds(resultJSON []byte) (json.RawMessage, *result.ReportRounds, error) {
	if t := bytes.TrimSpace(resultJSON); len(t) == 0 || t[0] != '{' {
		return resultJSON, nil, nil
	}
	var doc struct {
		Rounds         int             `json:"rounds"`
		Seed           uint64          `json:"seed"`
		Baseline       string          `json:"baseline"`
		IntervalMethod string          `json:"interval_method"`
		Runs           json.RawMessage `json:"runs"`
		Summary        json.RawMessage `json:"summary"`
	}
	if err := json.Unmarshal(resultJSON, &doc); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", notAResult, err)
	}
	if doc.Runs == nil || doc.Summary == nil {
		return nil, nil, fmt.Errorf("%s: an object without runs and summary", notAResult)
	}
	return doc.Runs, &result.ReportRounds{Rounds: doc.Rounds, Seed: doc.Seed, Baseline: doc.Baseline,
		IntervalMethod: doc.IntervalMethod, Summary: doc.Summary}, nil
}
