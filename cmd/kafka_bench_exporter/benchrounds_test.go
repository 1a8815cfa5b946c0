package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBenchDryRunOrder: --dry-run prints the plan with the rounds in the
// order --seed gives, the same for the same seed, and runs nothing.
func TestBenchDryRunOrder(t *testing.T) {
	file := filepath.Join(t.TempDir(), "bench.yml")
	if err := os.WriteFile(file, []byte("num_records: 10\nrounds: 3\nscenarios: [{name: a}, {name: b}, {name: c}]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	plan := func(seed string) string {
		code, stdout, stderr := runCLI(t, "bench", "--bench.file", file, "--kafka.brokers", "127.0.0.1:1", "--dry-run", "--seed", seed)
		if code != exitOK {
			t.Fatalf("exit code %d; stderr:\n%s", code, stderr)
		}
		if !strings.Contains(stderr, "3 rounds, scenario order shuffled with --seed="+seed) {
			t.Errorf("stderr lacks the seed:\n%s", stderr)
		}
		return stdout
	}
	out := plan("11")
	for _, want := range []string{"plan: 3 scenarios × 3 rounds = 9 runs, order shuffled with --seed=11\n", "round 3: ", `scenario "b": no configuration changes`} {
		if !strings.Contains(out, want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
	if again := plan("11"); again != out {
		t.Errorf("the same seed planned another order:\n%s\n%s", out, again)
	}
}
