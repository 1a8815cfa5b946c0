package probes

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/kclient"
)

// errLog logs a probe's recurring failures at most once a minute per
// reason, so an outage gives a line, not a flood.
type errLog struct {
	logger *slog.Logger
	mu     sync.Mutex
	last   map[string]time.Time
}

func newErrLog(logger *slog.Logger) *errLog {
	return &errLog{logger: logger, last: map[string]time.Time{}}
}

// produce logs a failed produce by its reason.
func (l *errLog) produce(err error) {
	if errors.Is(err, context.Canceled) || errors.Is(err, kgo.ErrClientClosed) {
		return
	}
	if kclient.IsAuthError(err) {
		l.auth("produce failed", err)
		return
	}
	l.warn("produce:"+failureReason(err), "produce failed", "reason", failureReason(err), "err", err)
}

// auth logs that Kafka rejected the probe's credentials or certificate: a
// configuration problem that does not heal by itself, so it is an error,
// not a warning.
func (l *errLog) auth(msg string, err error) {
	l.log(slog.LevelError, "auth", msg+": authentication failed: check kafka.sasl and kafka.tls (retrying)", "reason", ReasonAuth, "err", err)
}

func (l *errLog) fetch(partition int32, err error) {
	if kclient.IsAuthError(err) {
		l.auth("fetch failed", err)
		return
	}
	l.warn("fetch", "fetch failed", "partition", partition, "err", err)
}

func (l *errLog) warn(key, msg string, args ...any) {
	l.log(slog.LevelWarn, key, msg, args...)
}

func (l *errLog) log(level slog.Level, key, msg string, args ...any) {
	l.mu.Lock()
	now := time.Now()
	if now.Sub(l.last[key]) < time.Minute {
		l.mu.Unlock()
		return
	}
	l.last[key] = now
	l.mu.Unlock()
	l.logger.Log(context.Background(), level, msg, args...)
}
