package probetest

import "github.com/kafka-bench/kafka_bench_exporter/internal/testlog"

// Logs collects log output for assertions (internal/testlog).
type Logs = testlog.Logs

// CaptureLogger logs at info into the returned Logs, and to stderr too
// under `go test -v` (internal/testlog).
var CaptureLogger = testlog.CaptureLogger
