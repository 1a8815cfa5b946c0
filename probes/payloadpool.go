package probes

import (
	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/probes/payload"
)

// newPool makes the producer's record pool from the payload settings.
// Validation read the payload file once already; it is read again here, so
// a producer started later sends what the file holds then. A file that has
// become unreadable or empty since falls back to random letters of the
// validated record size, with a warning.
func (p *Probe) newPool() *payload.Pool {
	pl := p.cfg.Payload
	if pl.Kind != config.PayloadFile {
		return payload.NewPool(payload.Body{Kind: pl.Kind, Size: p.cfg.RecordSize})
	}
	entries, err := pl.Entries()
	if err == nil && len(entries) > 0 {
		return payload.NewPool(payload.Body{Kind: payload.File, Entries: entries})
	}
	p.logger.Warn("payload file unreadable or empty; sending random letters instead", "file", pl.File, "err", err)
	return payload.NewPool(payload.Body{Kind: payload.RandomLetters, Size: p.cfg.RecordSize})
}
