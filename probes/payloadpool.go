package probes

import (
	"log/slog"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/probes/payload"
)

// NewPool makes the producer's record pool from the payload settings.
// Validation read the payload file once already; it is read again here, so
// a producer started later sends what the file holds then. A file that has
// become unreadable or empty since falls back to random letters of the
// validated record size, with a warning.
func NewPool(cfg config.Probe, logger *slog.Logger) *payload.Pool {
	pl := cfg.Payload
	if pl.Kind != config.PayloadFile {
		return payload.NewPool(payload.Body{Kind: pl.Kind, Size: cfg.RecordSize})
	}
	entries, err := pl.Entries()
	if err == nil && len(entries) > 0 {
		return payload.NewPool(payload.Body{Kind: payload.File, Entries: entries})
	}
	logger.Warn("payload file unreadable or empty; sending random letters instead", "file", pl.File, "err", err)
	return payload.NewPool(payload.Body{Kind: payload.RandomLetters, Size: cfg.RecordSize})
}
