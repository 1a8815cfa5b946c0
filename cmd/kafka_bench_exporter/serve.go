package main

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/prometheus/exporter-toolkit/web"
)

// serve serves h on the --web.* listeners in the background, for the
// daemon and for bench alike. errs receives the server's error once it
// stops (http.ErrServerClosed after stop); stop shuts it down, waiting up
// to a second for requests in flight.
func serve(f *flags, h http.Handler, logger *slog.Logger) (errs <-chan error, stop func() error) {
	server := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	ch := make(chan error, 1)
	go func() { ch <- web.ListenAndServe(server, f.web, logger) }()
	return ch, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		return server.Shutdown(ctx)
	}
}
