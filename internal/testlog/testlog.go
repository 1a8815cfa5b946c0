// Package testlog collects a test's log output for assertions.
package testlog

import (
	"bytes"
	"io"
	"log/slog"
	"os"
	"sync"
	"testing"
)

// Logs collects log output for assertions; safe for concurrent use.
type Logs struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *Logs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// String is everything logged so far.
func (l *Logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// CaptureLogger logs at info (logfmt) into the returned Logs, and to stderr
// too under `go test -v`.
func CaptureLogger() (*slog.Logger, *Logs) {
	logs := &Logs{}
	var w io.Writer = logs
	if testing.Verbose() {
		w = io.MultiWriter(logs, os.Stderr)
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo})), logs
}
