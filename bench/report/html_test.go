package report

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kafka-bench/kafka_bench_exporter/bench/result"
)

// TestHTMLReportDataGolden: the page made from a fixed JSON result carries
// that result, the inferred parameter order and the bench file in its data
// section; the page loads nothing from the network.
func TestHTMLReportDataGolden(t *testing.T) {
	resultJSON, err := os.ReadFile(filepath.Join("testdata", "golden", "table.json"))
	if err != nil {
		t.Fatal(err)
	}
	file := &result.FileText{Name: "bench.yml", Text: "num_records: 1000000\nmatrix: {record_size: [100, 1000], acks: [\"1\", all]}\n# </script> stays text\n"}
	var page bytes.Buffer
	if err := RenderHTML(&page, resultJSON, nil, file); err != nil {
		t.Fatal(err)
	}
	section, err := DataSection(page.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "report-data.json", append(bytes.Clone(section), '\n'))

	html := page.String()
	if strings.Count(html, "</script>") != 4 { // data, uPlot, charts, report
		t.Errorf("page has %d </script> tags, want 4: the data section must not close its element", strings.Count(html, "</script>"))
	}
	if m := regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?(https?:)?//`).FindString(html); m != "" {
		t.Errorf("page loads %q: it must open offline", m)
	}
	for _, want := range []string{"<title>Kafka bench report: bench.yml</title>", "uPlot", "num_records: 1000000"} {
		if !strings.Contains(html, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// TestWriteHTMLMatchesRenderHTML: a report written at the end of a run and
// one made later from its saved JSON are the same page.
func TestWriteHTMLMatchesRenderHTML(t *testing.T) {
	keys, results := sampleResults()
	var direct, saved, later bytes.Buffer
	if err := Write(&direct, FormatHTML, Report{ParamKeys: keys, Results: results}); err != nil {
		t.Fatal(err)
	}
	if err := Write(&saved, FormatJSON, Report{ParamKeys: keys, Results: results}); err != nil {
		t.Fatal(err)
	}
	if err := RenderHTML(&later, saved.Bytes(), nil, nil); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(direct.Bytes(), later.Bytes()) {
		t.Error("the page from the saved JSON differs from the page written by the run")
	}
}

func TestRenderHTMLRejectsNonResult(t *testing.T) {
	for _, in := range []string{`{"scenario": "x"}`, `not json`, ``, `{"rounds": 3, "runs": []}`, `{"runs": {}, "summary": []}`} {
		if err := RenderHTML(&bytes.Buffer{}, []byte(in), nil, nil); err == nil {
			t.Errorf("RenderHTML(%q) succeeded", in)
		}
	}
}

// TestHTMLRoundsReportDataGolden: a rounds result (testdata/golden/rounds.json,
// what Write writes in JSON for roundsBench) gives a page whose data section
// has the runs as the results and the rest — seed as a string, baseline,
// summary — as rounds; a run writes the same page.
func TestHTMLRoundsReportDataGolden(t *testing.T) {
	b, results := roundsBench(t)
	results[2].Err = "" // all three base rounds: verdicts
	var saved bytes.Buffer
	if err := Write(&saved, FormatJSON, Report{ParamKeys: b.ParamKeys, Results: results, Bench: b, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	golden(t, "rounds.json", saved.Bytes())

	resultJSON, err := os.ReadFile(filepath.Join("testdata", "golden", "rounds.json"))
	if err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	if err := RenderHTML(&page, resultJSON, nil, nil); err != nil {
		t.Fatal(err)
	}
	section, err := DataSection(page.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "rounds-report-data.json", append(bytes.Clone(section), '\n'))
	if !strings.Contains(page.String(), "6 runs (3 rounds)") {
		t.Error("page does not say 6 runs (3 rounds)")
	}

	var direct bytes.Buffer
	if err := Write(&direct, FormatHTML, Report{ParamKeys: b.ParamKeys, Results: results, Bench: b, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	var later bytes.Buffer
	if err := RenderHTML(&later, saved.Bytes(), b.ParamKeys, nil); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(direct.Bytes(), later.Bytes()) {
		t.Error("the page from the saved rounds JSON differs from the page written by the run")
	}
}

// TestRenderHTMLSeedExact: a 64-bit seed reaches the page digit for digit
// (JavaScript numbers would round it).
func TestRenderHTMLSeedExact(t *testing.T) {
	var page bytes.Buffer
	in := `{"rounds": 2, "seed": 18446744073709551557, "interval_method": "m", "runs": [], "summary": []}`
	if err := RenderHTML(&page, []byte(in), nil, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), `"seed": "18446744073709551557"`) {
		t.Errorf("data section lacks the seed as a string:\n%s", page.String()[:min(page.Len(), 2000)])
	}
}
