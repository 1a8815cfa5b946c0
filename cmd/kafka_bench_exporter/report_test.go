package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	benchreport "github.com/kafka-bench/kafka_bench_exporter/bench/report"
	"github.com/kafka-bench/kafka_bench_exporter/bench/result"
)

// TestBenchHTMLThenReport: a run's --format=html page and the page
// "bench report" makes later from the same run's JSON are the same.
func TestBenchHTMLThenReport(t *testing.T) {
	dir := t.TempDir()
	benchFile := filepath.Join(dir, "sweep.yml")
	if err := os.WriteFile(benchFile, []byte("num_records: 200\nmatrix: {record_size: [100, 200]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "report.html")
	code, stdout, stderr := runCLI(t, "bench", "--bench.embedded", "--bench.file", benchFile, "--output", page, "--format", "html")
	if code != exitOK {
		t.Fatalf("exit code %d; stderr:\n%s\nstdout:\n%s", code, stderr, stdout)
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
		ParamKeys []string        `json:"param_keys"`
		BenchFile result.FileText `json:"bench_file"`
		Results   []struct {
			Produce struct {
				LatencyMS struct {
					Percentiles []struct{ Percentile, MS float64 } `json:"percentiles"`
				} `json:"latency_ms"`
			} `json:"produce"`
		} `json:"results"`
	}
	if err := json.Unmarshal(section, &data); err != nil {
		t.Fatal(err)
	}
	if len(data.Results) != 2 || strings.Join(data.ParamKeys, ",") != "record_size" || !strings.Contains(data.BenchFile.Text, "record_size: [100, 200]") {
		t.Fatalf("data section: %d results, keys %v, bench file %q", len(data.Results), data.ParamKeys, data.BenchFile.Text)
	}
	for i, r := range data.Results {
		if p := r.Produce.LatencyMS.Percentiles; len(p) < 2 || p[len(p)-1].Percentile != 100 {
			t.Errorf("result %d: spectrum %v, want points up to 100 %%", i, p)
		}
	}

	// The HTML is rendered from the run's JSON, so the saved JSON of those
	// results gives the same page: "bench report" reads only that.
	saved := filepath.Join(dir, "results.json")
	var results json.RawMessage
	if err := json.Unmarshal(section, &struct {
		Results *json.RawMessage `json:"results"`
	}{&results}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(saved, results, 0o644); err != nil {
		t.Fatal(err)
	}
	later := filepath.Join(dir, "later.html")
	if code, _, stderr := runCLI(t, "bench", "report", saved, "--bench.file", benchFile, "--output", later); code != exitOK {
		t.Fatalf("bench report: exit code %d; stderr:\n%s", code, stderr)
	}
	got, err := os.ReadFile(later)
	if err != nil {
		t.Fatal(err)
	}
	gotSection, _ := benchreport.DataSection(got)
	if !bytes.Equal(gotSection, section) || !bytes.Equal(got, html) {
		t.Errorf("bench report made another page from the run's own results")
	}
}

func TestBenchReportBadInput(t *testing.T) {
	notJSON := filepath.Join(t.TempDir(), "x.json")
	if err := os.WriteFile(notJSON, []byte(`{"scenario": "a"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no file", []string{"bench", "report"}, "give the JSON result"},
		{"missing file", []string{"bench", "report", "/nonexistent.json"}, "no such file"},
		{"not a result", []string{"bench", "report", notJSON}, "not a bench JSON result"},
		{"other format", []string{"bench", "report", notJSON, "--format", "csv"}, "a report is HTML"},
		{"unknown action", []string{"bench", "reprot", notJSON}, `bench has no command "reprot"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, c.args...)
			if code != exitBadInput || !strings.Contains(stderr, c.want) {
				t.Errorf("exit code %d, want %d; stderr lacks %q:\n%s", code, exitBadInput, c.want, stderr)
			}
		})
	}
}

// TestBenchRoundsHTMLAndReport: with rounds, --format=html carries each
// round's run and the summary with the verdicts, and "bench report" reads a
// saved rounds result (--format=json's object) as well as an array.
func TestBenchRoundsHTMLAndReport(t *testing.T) {
	dir := t.TempDir()
	benchFile := filepath.Join(dir, "rounds.yml")
	if err := os.WriteFile(benchFile, []byte("num_records: 200\nrounds: 3\nmatrix: {record_size: [100, 200]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "report.html")
	code, stdout, stderr := runCLI(t, "bench", "--bench.embedded", "--bench.file", benchFile, "--seed", "5", "--output", page, "--format", "html")
	if code != exitOK {
		t.Fatalf("exit code %d; stderr:\n%s\nstdout:\n%s", code, stderr, stdout)
	}
	type section struct {
		ParamKeys []string `json:"param_keys"`
		Rounds    *struct {
			Rounds   int    `json:"rounds"`
			Seed     string `json:"seed"`
			Baseline string `json:"baseline"`
			Summary  []struct {
				Scenario string     `json:"scenario"`
				Values   []*float64 `json:"values"`
				Verdict  string     `json:"verdict"`
				Baseline bool       `json:"baseline"`
			} `json:"summary"`
		} `json:"rounds"`
		Results []struct {
			Round int `json:"round"`
		} `json:"results"`
	}
	read := func(path string) section {
		t.Helper()
		html, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := benchreport.DataSection(html)
		if err != nil {
			t.Fatal(err)
		}
		var s section
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		if s.Rounds == nil {
			t.Fatalf("%s: data section has no rounds:\n%s", path, raw)
		}
		return s
	}
	s := read(page)
	if r := s.Rounds; r.Rounds != 3 || r.Seed != "5" || r.Baseline != "record_size=100" || len(r.Summary) != 8 || len(s.Results) != 6 || s.Results[5].Round == 0 {
		t.Errorf("data section: keys %v, rounds %+v, %d results", s.ParamKeys, *r, len(s.Results))
	}
	for _, sum := range s.Rounds.Summary {
		if len(sum.Values) != 3 || (sum.Verdict == "") != sum.Baseline {
			t.Errorf("summary row %+v: want 3 rounds' values and a verdict (or baseline)", sum)
		}
	}

	later := filepath.Join(dir, "later.html")
	saved := filepath.Join("..", "..", "bench", "report", "testdata", "report-rounds.json")
	if code, _, stderr := runCLI(t, "bench", "report", saved, "--output", later); code != exitOK {
		t.Fatalf("bench report: exit code %d; stderr:\n%s", code, stderr)
	}
	if s := read(later); s.Rounds.Rounds != 4 || len(s.Results) != 12 || len(s.Rounds.Summary) != 12 {
		t.Errorf("report of %s: rounds %+v, %d results", saved, *s.Rounds, len(s.Results))
	}
}

// TestBenchReportRedactsSecrets: "bench report" of a result saved with a
// host URL's password (by an older version) and a bench file holding a SASL
// password and that URL makes a page without the password; a bench file
// whose host URL does not parse is refused without it.
func TestBenchReportRedactsSecrets(t *testing.T) {
	const password = "hunter2"
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	saved := write("results.json", `[{"scenario": "", "params": {}, "status": "ok", "hosts": [{"name": "kafka1", "role": "broker",
  "url": "http://u:hunter2@127.0.0.1:9100/metrics", "status": "unreachable", "error": "GET http://u:hunter2@127.0.0.1:9100/metrics: 401 Unauthorized"}]}]`)
	file := write("bench.yml", `kafka:
  brokers: [127.0.0.1:9092]
  sasl: {mechanism: PLAIN, username: u, password: hunter2}
num_records: 100
hosts:
  - {name: kafka1, url: "http://u:hunter2@127.0.0.1:9100/metrics"}
`)
	page := filepath.Join(dir, "report.html")
	code, stdout, stderr := runCLI(t, "bench", "report", saved, "--bench.file", file, "--output", page)
	if code != exitOK {
		t.Fatalf("exit code %d; stderr:\n%s", code, stderr)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(html)+stdout+stderr, password) {
		t.Errorf("the report shows the password:\n%s", html)
	}
	if !strings.Contains(string(html), "password: &lt;secret&gt;}") || !strings.Contains(string(html), "u:&lt;secret&gt;@127.0.0.1:9100") {
		t.Errorf("the report's bench file lacks the redacted password and URL:\n%s", html)
	}

	bad := write("bad.yml", "num_records: 100\nhosts:\n  - {name: kafka1, url: \"http://u:hunter2@[::1/metrics\"}\n")
	code, _, stderr = runCLI(t, "bench", "report", saved, "--bench.file", bad)
	if code != exitBadInput || strings.Contains(stderr, password) || !strings.Contains(stderr, "u:<secret>@") {
		t.Errorf("invalid host URL: exit %d, want %d without the password; stderr:\n%s", code, exitBadInput, stderr)
	}
}
