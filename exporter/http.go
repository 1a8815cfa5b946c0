package exporter

import (
	"bytes"
	"html/template"
	"log/slog"
	"net/http"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/exporter-toolkit/web"
)

// HandlerOpts configure the HTTP endpoints.
type HandlerOpts struct {
	TelemetryPath string
	Version       string
	// Reload re-reads the configuration; nil disables POST /-/reload.
	Reload func() error
}

// Handler serves /metrics (content-negotiated, so a Prometheus that asks for
// protobuf gets native histograms), the landing page, /-/healthy, /-/ready,
// /-/reload and /changes (the last configuration changes, as JSON).
func (e *Exporter) Handler(opts HandlerOpts) http.Handler {
	mux := http.NewServeMux()
	mux.Handle(opts.TelemetryPath, promhttp.HandlerFor(e.reg, promhttp.HandlerOpts{
		ErrorLog:          slog.NewLogLogger(e.logger.Handler(), slog.LevelError),
		EnableOpenMetrics: true,
		Registry:          e.reg, // promhttp_metric_handler_errors_total
	}))
	mux.Handle("/changes", e.watch.Changes())
	mux.HandleFunc("/-/healthy", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("Healthy.\n"))
	})
	mux.HandleFunc("/-/ready", func(w http.ResponseWriter, _ *http.Request) {
		if !e.Ready() {
			http.Error(w, "Not ready: a probe has not yet produced and consumed a record.", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("Ready.\n"))
	})
	mux.HandleFunc("/-/reload", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost && r.Method != http.MethodPut {
			http.Error(w, "Use POST to reload the configuration.", http.StatusMethodNotAllowed)
			return
		}
		if opts.Reload == nil {
			http.Error(w, "No configuration file to reload.", http.StatusBadRequest)
			return
		}
		if err := opts.Reload(); err != nil {
			http.Error(w, "Reload failed: "+err.Error(), http.StatusBadRequest)
			return
		}
		_, _ = w.Write([]byte("Reloaded.\n"))
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		e.landingPage(opts).ServeHTTP(w, r)
	})
	return mux
}

var probeTable = template.Must(template.New("probes").Parse(`<h2>Probes</h2>
<table class="probes"><tr><th>probe</th><th>topic</th><th>rate (records/s)</th><th>record_size</th><th>acks</th><th>linger.ms</th><th>batch.size</th><th>compression.type</th><th>idempotence</th><th>partitions</th><th>consumer group</th><th>consumers</th><th>capacity</th></tr>
{{range .}}<tr><td>{{.Name}}</td><td>{{.Topic}}</td><td>{{if .Rate}}{{.Rate}}{{else}}unlimited{{end}}</td><td>{{.RecordSize}}</td><td>{{.Producer.Acks}}</td><td>{{.Producer.LingerMS}}</td><td>{{.Producer.BatchSize}}</td><td>{{.Producer.CompressionType}}</td><td>{{.Producer.Idempotent}}</td><td>{{.CreateTopic.Partitions}}</td><td>{{if .Consumer.Enabled}}{{.Consumer.GroupID}}{{else}}(off){{end}}</td><td>{{.Consumer.Consumers}}</td><td>{{with .Capacity}}every {{.Interval}} ±10 %, {{.StartRate}}/s ×{{.Growth}} up to {{if .MaxRate}}{{.MaxRate}}/s {{end}}{{if .MaxBytesPerSecond}}{{.MaxBytesPerSecond}} B/s {{end}}while p99 ≤ {{.LatencySLO}}, topic {{.Topic}}{{else}}off{{end}}</td></tr>
{{end}}</table>`))

// landingPage is rendered per request: probes change on reload, and the page
// is rarely asked for.
func (e *Exporter) landingPage(opts HandlerOpts) http.Handler {
	var extra bytes.Buffer
	if err := probeTable.Execute(&extra, e.Probes()); err != nil {
		e.logger.Error("rendering landing page", "err", err)
	}
	page, err := web.NewLandingPage(web.LandingConfig{
		Name:        "Kafka Bench Exporter",
		Description: "Continuous Kafka producer/consumer benchmark probes, exported for Prometheus",
		Version:     opts.Version,
		Links: []web.LandingLinks{
			{Address: opts.TelemetryPath, Text: "Metrics"},
			{Address: "/-/healthy", Text: "Health"},
			{Address: "/-/ready", Text: "Readiness"},
			{Address: "/changes", Text: "Configuration changes"},
		},
		ExtraHTML: extra.String(),
		ExtraCSS:  "table.probes { border-collapse: collapse } table.probes td, table.probes th { border: 1px solid #ccc; padding: 2px 6px }",
	})
	if err != nil {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		})
	}
	return page
}
