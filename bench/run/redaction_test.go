package run

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kafka-bench/kafka_bench_exporter/bench/report"
	"github.com/kafka-bench/kafka_bench_exporter/bench/result"
	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testenv"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
	"github.com/kafka-bench/kafka_bench_exporter/probes/promsink"
)

// password is the secret the redaction tests hide; it must appear nowhere.
const password = "hunter2"

// TestNoSecretInAnyOutput runs a bench that authenticates with SASL PLAIN
// password hunter2 and measures three hosts whose URLs hold it: one that
// serves its metrics only with those credentials, one that refuses the
// connection and one that answers 401 to a token given as the user. The
// Markdown, CSV, JSON and HTML outputs, the record sent to the results
// topic, the progress and the log show no hunter2; the serving host was
// still scraped with the credentials.
func TestNoSecretInAnyOutput(t *testing.T) {
	prom, err := os.ReadFile(filepath.Join("..", "hostwatch", "testdata", "hosts", "kafka_bench_host.prom"))
	if err != nil {
		t.Fatal(err)
	}
	var authorized int
	serving := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "u" || p != password {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		authorized++
		_, _ = w.Write(prom)
	}))
	defer serving.Close()
	denying := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "unauthorized", http.StatusUnauthorized)
	}))
	defer denying.Close()

	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.EnableSASL(), kfake.Superuser("PLAIN", "u", password))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	file := fmt.Sprintf(`kafka:
  brokers: [%s]
  sasl: {mechanism: PLAIN, username: u, password: %s}
num_records: 300
defaults: {record_size: 100, create_topic: {partitions: 1}}
hosts:
  - {name: served, url: "http://u:%s@%s/metrics", role: broker}
  - {name: refused, url: "http://u:%s@%s/metrics", role: broker}
  - {name: denied, url: "http://%s@%s/metrics", role: broker}
`, c.ListenAddrs()[0], password, password, strings.TrimPrefix(serving.URL, "http://"),
		password, testenv.FreeAddr(t), password, strings.TrimPrefix(denying.URL, "http://"))
	b, err := spec.Parse([]byte(file))
	if err == nil {
		err = b.Resolve()
	}
	if err != nil {
		t.Fatal(err)
	}
	var logs, progress bytes.Buffer
	r := &Runner{
		Sinks:            []event.Sink{promsink.NewMetrics(prometheus.NewRegistry())},
		Logger:           slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Progress:         &progress,
		ProgressInterval: 100 * time.Millisecond,
		SweepID:          "secret",
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	results, err := r.Run(ctx, b)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if len(results) != 1 || results[0].Err != "" || results[0].Produce == nil || results[0].Produce.Records != 300 {
		t.Fatalf("the bench did not run through SASL: %+v", results)
	}
	if authorized == 0 {
		t.Error("the serving host was never scraped with the URL's credentials")
	}
	rows := map[string]result.HostRow{}
	for _, h := range results[0].Hosts {
		rows[h.Name] = h
	}
	if rows["served"].Unreachable() || !rows["refused"].Unreachable() || !strings.Contains(rows["denied"].Err, "401") {
		t.Errorf("host rows %+v: want served measured, refused unreachable, denied with its 401", results[0].Hosts)
	}
	if got := rows["served"].URL; got != "http://u:<secret>@"+strings.TrimPrefix(serving.URL, "http://")+"/metrics" {
		t.Errorf("served host's URL shown as %q", got)
	}

	outputs := map[string]string{"log": logs.String(), "progress": progress.String()}
	for _, format := range report.Formats {
		var out bytes.Buffer
		if err := report.Write(&out, format, report.Report{ParamKeys: b.ParamKeys, Results: results}); err != nil {
			t.Fatal(err)
		}
		outputs[format] = out.String()
	}
	var page bytes.Buffer
	if err := report.Write(&page, report.FormatHTML, report.Report{ParamKeys: b.ParamKeys, Results: results, File: &result.FileText{Name: "bench.yml", Text: file}}); err != nil {
		t.Fatal(err)
	}
	outputs["html with the bench file"] = page.String()
	// The same report of a bench file that authenticates with Kerberos
	// and a password, and one with the OAuth client secret's file.
	for name, sasl := range map[string]string{
		"html with a Kerberos bench file": "{mechanism: GSSAPI, username: u, password: " + password + ", kerberos: {config_file: /etc/krb5.conf}}",
		"html with an OAuth bench file":   "{mechanism: OAUTHBEARER, oauth: {token_endpoint: \"https://idp.example/token\", client_id: u, client_secret_file: /run/secrets/oauth}}",
	} {
		text := strings.Replace(file, "{mechanism: PLAIN, username: u, password: "+password+"}", sasl, 1)
		if text == file {
			t.Fatal("the bench file has no SASL block to replace")
		}
		var page bytes.Buffer
		if err := report.Write(&page, report.FormatHTML, report.Report{ParamKeys: b.ParamKeys, Results: results, File: &result.FileText{Name: "bench.yml", Text: text}}); err != nil {
			t.Fatal(err)
		}
		outputs[name] = page.String()
	}
	record, err := json.Marshal(result.JSONResults(b.ParamKeys, results)[0]) // what publish sends
	if err != nil {
		t.Fatal(err)
	}
	outputs["results topic record"] = string(record)
	for what, out := range outputs {
		if strings.Contains(out, password) {
			t.Errorf("%s shows the password:\n%s", what, out)
		}
	}
	for what, want := range map[string]string{"markdown": "u:<secret>@", "json": `u:\u003csecret\u003e@`, "log": "u:<secret>@",
		"html with the bench file": "password: &lt;secret&gt;", "html with a Kerberos bench file": "password: &lt;secret&gt;",
		"html with an OAuth bench file": "client_secret_file: /run/secrets/oauth"} {
		if !strings.Contains(outputs[what], want) {
			t.Errorf("%s lacks %q:\n%s", what, want, outputs[what])
		}
	}
}

// TestNoSecretInErrors: a host URL that does not parse shows no secret (a
// refused broker setting: brokercfg's TestNoSecretInRefusal; a scrape's
// error: hostwatch's TestNoSecretInScrapeErrors).
func TestNoSecretInErrors(t *testing.T) {
	_, err := spec.Parse([]byte("num_records: 10\nhosts:\n  - {name: k, url: \"http://u:hunter2@[::1/metrics\"}\n"))
	if err == nil || strings.Contains(err.Error(), password) || !strings.Contains(err.Error(), `url = "http://u:<secret>@[::1/metrics"`) {
		t.Errorf("invalid URL: %v", err)
	}
}

// TestNoSecretInPlan: --dry-run prints each setting a scenario makes, but not
// the value of one named like a secret.
func TestNoSecretInPlan(t *testing.T) {
	brokers := probetest.Kfake(t, 3)
	b, err := spec.Parse([]byte("num_records: 10\ndefaults: {topic.x.sasl.jaas.config: hunter2, topic.cleanup.policy: compact}\n"))
	if err != nil {
		t.Fatal(err)
	}
	b.Kafka.Kafka.Brokers = brokers
	var out bytes.Buffer
	if err := (&Runner{Logger: testLogger()}).Plan(context.Background(), b, &out); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); strings.Contains(s, password) || !strings.Contains(s, "x.sasl.jaas.config = <secret>") || !strings.Contains(s, "cleanup.policy = compact") {
		t.Errorf("plan:\n%s", s)
	}
}
