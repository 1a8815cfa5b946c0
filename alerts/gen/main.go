// Command gen rewrites the generated exporter-health group of alerts.yml
// (see alerts.HealthGroup). Run from anywhere in the module:
//
//	go generate ./alerts
package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/kafka-bench/kafka_bench_exporter/alerts"
)

func main() {
	_, file, _, _ := runtime.Caller(0)
	path := filepath.Join(filepath.Dir(file), "..", alerts.AlertsFile)
	old, err := os.ReadFile(path)
	if err == nil {
		var b []byte
		if b, err = alerts.WithHealthGroup(old, alerts.JobSelector); err == nil && !bytes.Equal(b, old) {
			err = os.WriteFile(path, b, 0o644)
			fmt.Println("wrote", path)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "alerts/gen:", err)
		os.Exit(1)
	}
}
