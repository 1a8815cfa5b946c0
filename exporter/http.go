package exporter

import (
	"bytes"
	"html/template"
	"log/slog"
	"net/http"
	"net/http/pprof"
	"strconv"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/exporter-toolkit/web"

	"github.com/kafka-bench/kafka_bench_exporter/redact"
)

// HandlerOpts configure the HTTP endpoints.
type HandlerOpts struct {
	TelemetryPath string
	Version       string
	// Reload re-reads the configuration; nil (no --config.file) makes
	// POST /-/reload answer 400.
	Reload func() error
	// EnableLifecycle lets POST and PUT /-/reload call Reload
	// (--web.enable-lifecycle); without it they answer 403, as Prometheus'
	// do. SIGHUP does not go through here.
	EnableLifecycle bool
	// Pprof serves Go's profiles under /debug/pprof/ (--web.enable-pprof)
	// and links them from the landing page.
	Pprof bool
}

// Handler serves /metrics (content-negotiated, so a Prometheus that asks for
// protobuf gets native histograms), the landing page, /-/healthy, /-/ready,
// /-/reload, /changes (the last configuration changes, as JSON) and, when
// asked for, /debug/pprof/.
func (e *Exporter) Handler(opts HandlerOpts) http.Handler {
	mux := http.NewServeMux()
	if opts.Pprof {
		mux.HandleFunc("/debug/pprof/", pprof.Index) // heap, goroutine, ... by name
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	mux.Handle(opts.TelemetryPath, promhttp.HandlerFor(e.reg, promhttp.HandlerOpts{
		ErrorLog:          slog.NewLogLogger(e.logger.Handler(), slog.LevelError),
		EnableOpenMetrics: true,
		Registry:          e.reg, // promhttp_metric_handler_errors_total
	}))
	mux.Handle("/changes", e.watch.Changes())
	e.handleLive(mux)
	mux.HandleFunc("/-/healthy", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("Healthy.\n"))
	})
	mux.HandleFunc("/-/ready", func(w http.ResponseWriter, _ *http.Request) {
		if !e.Ready() {
			http.Error(w, "Not ready: a probe is not up (kafka_bench_probe_up 0): no record produced and consumed within its window.", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("Ready.\n"))
	})
	mux.HandleFunc("/-/reload", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost && r.Method != http.MethodPut {
			http.Error(w, "Use POST (or PUT) to reload the configuration.", http.StatusMethodNotAllowed)
			return
		}
		if !opts.EnableLifecycle {
			http.Error(w, "Lifecycle API is not enabled.", http.StatusForbidden)
			return
		}
		if opts.Reload == nil {
			http.Error(w, "No configuration file to reload: the exporter runs without --config.file.", http.StatusBadRequest)
			return
		}
		if err := opts.Reload(); err != nil {
			http.Error(w, "Reload failed: "+redact.Text(err.Error()), http.StatusBadRequest)
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
		ExtraHTML: extra.String() + liveHTML,
		Profiling: strconv.FormatBool(opts.Pprof), // its links, only when served
		ExtraCSS:  "table.probes { border-collapse: collapse } table.probes td, table.probes th { border: 1px solid #ccc; padding: 2px 6px }" + liveCSS(),
	})
	if err != nil {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		})
	}
	return page
}
