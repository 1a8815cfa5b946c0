package exporter

import (
	"context"
	_ "embed"
	"encoding/json"
	"net/http"
	"sync"

	"github.com/kafka-bench/kafka_bench_exporter/webassets"
)

// The landing page's live section: per probe, sparklines of the last 15
// minutes from the ring, redrawn every liveInterval by landing.js from
// /live.json. Scripts and styles are served by the exporter itself, so the
// page needs no network beyond it and passes through the same TLS and basic
// auth as every endpoint.

//go:embed landing.js
var landingJS string

// liveHTML goes into the landing page; paths are relative, so a route
// prefix in front of the exporter keeps working.
const liveHTML = `<h2>Live (last 15 minutes)</h2>
<div id="live"><p class="live-note">Waiting for the first samples…</p></div>
<link rel="stylesheet" href="static/uplot.min.css">
<script src="static/uplot.min.js"></script>
<script src="static/charts.js"></script>
<script src="static/landing.js"></script>`

// liveCSS styles the live section (with the shared chart styles).
func liveCSS() string {
	return webassets.ChartsCSS + liveSectionCSS
}

const liveSectionCSS = `
#live .probe { margin: 8px 0 16px 0; }
#live .probe h3 { margin: 4px 0; font-size: 16px; }
#live .sparks { display: flex; flex-wrap: wrap; gap: 0 16px; }
#live .sparks figure.chart { margin: 0 0 8px 0; }
#live .live-note { color: #666; }`

// liveLoop runs the ring's sampler from the first Apply until Stop.
type liveLoop struct {
	once   sync.Once
	mu     sync.Mutex
	cancel context.CancelFunc
	done   chan struct{}
}

func (l *liveLoop) start(ctx context.Context, r *liveRing) {
	l.once.Do(func() {
		ctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		l.mu.Lock()
		l.cancel, l.done = cancel, done
		l.mu.Unlock()
		go func() {
			defer close(done)
			r.run(ctx)
		}()
	})
}

func (l *liveLoop) stop() {
	l.mu.Lock()
	cancel, done := l.cancel, l.done
	l.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}

// handleLive registers /live.json, the page's static files and /favicon.ico.
func (e *Exporter) handleLive(mux *http.ServeMux) {
	mux.HandleFunc("/live.json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		_ = json.NewEncoder(w).Encode(e.live.snapshot())
	})
	// Browsers ask for an icon; a 404 would show as a console error.
	mux.HandleFunc("/favicon.ico", func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})
	for path, asset := range map[string]struct{ body, typ string }{
		"/static/uplot.min.js":  {webassets.UPlotJS, "text/javascript"},
		"/static/uplot.min.css": {webassets.UPlotCSS, "text/css"},
		"/static/charts.js":     {webassets.ChartsJS, "text/javascript"},
		"/static/landing.js":    {landingJS, "text/javascript"},
	} {
		mux.HandleFunc(path, func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", asset.typ+"; charset=utf-8")
			w.Header().Set("Cache-Control", "max-age=3600")
			_, _ = w.Write([]byte(asset.body))
		})
	}
}
