package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/kafka-bench/kafka_bench_exporter/bench/result"
)

// password is the secret the redaction tests hide; it must appear nowhere.
const password = "hunter2"

// TestNoSecretInSavedResults: results saved by an older version, or read
// back from another worker, may hold a URL's credentials; the outputs made
// from them (Markdown, JSON, the results topic, the report page of "bench
// report") show none.
func TestNoSecretInSavedResults(t *testing.T) {
	raw := `[{"scenario": "", "params": {}, "status": "ok",
  "hosts": [{"name": "kafka1", "role": "broker", "url": "http://u:hunter2@10.0.0.1:9100/metrics", "status": "unreachable",
    "error": "GET http://u:hunter2@10.0.0.1:9100/metrics: 401 Unauthorized"}]}]`
	var page bytes.Buffer
	if err := RenderHTML(&page, []byte(raw), nil, &result.FileText{Name: "b.yml", Text: "kafka:\n  sasl: {password: hunter2}\n"}); err != nil {
		t.Fatal(err)
	}
	outputs := map[string]string{"report page": page.String()}
	results := []result.Result{{Hosts: []result.HostRow{{Name: "kafka1", Role: "broker", URL: "http://u:hunter2@10.0.0.1:9100/metrics",
		Err: `Get "http://hunter2@10.0.0.1:9100/metrics": dial tcp 10.0.0.1:9100: connect: connection refused`},
		{Name: "kafka2", Role: "broker", URL: "http://u:hunter2/x@10.0.0.2:9100/metrics", Err: "refused"}}}}
	for _, format := range []string{FormatMarkdown, FormatJSON} {
		var out bytes.Buffer
		if err := Write(&out, format, Report{Results: results}); err != nil {
			t.Fatal(err)
		}
		outputs[format] = out.String()
	}
	for what, out := range outputs {
		if strings.Contains(out, password) {
			t.Errorf("%s shows the password:\n%s", what, out)
		}
	}
	section, err := DataSection(page.Bytes())
	if err != nil || !json.Valid(section) {
		t.Errorf("the redacted data section is not JSON (%v):\n%s", err, section)
	}
}
