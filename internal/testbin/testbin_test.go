package testbin

import (
	"os"
	"path/filepath"
	"testing"
)

// A $KAFKA_BENCH_BINARY that is missing, a folder or not executable is
// refused rather than run.
func TestExecutable(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "exe")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(dir, "missing"), dir, plain} {
		if err := executable(p); err == nil {
			t.Errorf("executable(%q) = nil, want an error", p)
		}
	}
	if err := executable(exe); err != nil {
		t.Errorf("executable(%q) = %v", exe, err)
	}
}

func TestWithoutVersionEnv(t *testing.T) {
	got := WithoutVersionEnv([]string{"PATH=/bin", "VERSION=1", "BRANCH=x", "HOME=/h", "SOURCE_DATE_EPOCH=0"})
	if len(got) != 2 || got[0] != "PATH=/bin" || got[1] != "HOME=/h" {
		t.Errorf("WithoutVersionEnv = %q", got)
	}
}
