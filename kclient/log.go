package kclient

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// slogAdapter lets franz-go log through the exporter's logger. franz-go warns
// on every failed connection attempt, which floods the log while a broker is
// away; its info and warn lines go to debug and the probe logs state changes
// itself. Its errors repeat at every retry too (a wrong password: every
// reconnect), so each message is a WARN at most once a minute per client,
// and debug otherwise.
type slogAdapter struct {
	l     *slog.Logger
	limit *logLimit
}

func newSlogAdapter(l *slog.Logger) slogAdapter {
	return slogAdapter{l: l, limit: &logLimit{last: map[string]time.Time{}}}
}

func (a slogAdapter) Level() kgo.LogLevel {
	if a.l.Enabled(context.Background(), slog.LevelDebug) {
		return kgo.LogLevelInfo
	}
	return kgo.LogLevelError
}

func (a slogAdapter) Log(level kgo.LogLevel, msg string, keyvals ...any) {
	if level == kgo.LogLevelError && a.limit.allow(msg, time.Now()) {
		a.l.Warn(msg, keyvals...)
		return
	}
	a.l.Debug(msg, keyvals...)
}

// logLimit lets each message through once a minute.
type logLimit struct {
	mu   sync.Mutex
	last map[string]time.Time // bounded: franz-go's messages are constants
}

func (l *logLimit) allow(msg string, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.last[msg]) < time.Minute {
		return false
	}
	l.last[msg] = now
	return true
}
