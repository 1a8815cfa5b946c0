// Package testenv decides whether a test that needs an outside tool or a real
// broker runs, skips or fails: in CI (CI=true) and in the full suite
// (KAFKA_BENCH_INTEGRATION=1) nothing may skip silently.
package testenv

import (
	"os"
	"os/exec"
	"testing"
)

// Strict reports whether missing prerequisites must fail tests.
func Strict() bool {
	return os.Getenv("CI") == "true" || os.Getenv("KAFKA_BENCH_INTEGRATION") == "1"
}

// Tool returns the path of a command on PATH; without it the test skips, or
// fails when Strict.
func Tool(t testing.TB, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	if Strict() {
		t.Fatalf("%s is not on PATH; it is required here (scripts/test.sh installs it)", name)
	}
	t.Skipf("%s is not on PATH", name)
	return ""
}
