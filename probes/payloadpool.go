package probes

import (
	"log/slog"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/probes/payload"
)

// NewPool makes the producer's record pool from the payload settings and,
// for kind file, the entries the resolve step read from the file
// (config.ResolvedProbe.Payload). Without entries (a probe built from an
// unresolved configuration) it sends random letters of the record size,
// with a warning.
func NewPool(cfg config.Probe, entries [][]byte, logger *slog.Logger) *payload.Pool {
	pl := cfg.Payload
	if pl.Kind != config.PayloadFile {
		return payload.NewPool(payload.Body{Kind: pl.Kind, Size: cfg.RecordSize})
	}
	if len(entries) > 0 {
		return payload.NewPool(payload.Body{Kind: payload.File, Entries: entries})
	}
	logger.Warn("payload file not resolved; sending random letters instead", "file", pl.File)
	return payload.NewPool(payload.Body{Kind: payload.RandomLetters, Size: cfg.RecordSize})
}
