// Package testbin is the exporter binary for the tests that run it as a
// process. One build serves a whole test run: scripts/test.sh builds it once
// with scripts/build.sh and passes it in $KAFKA_BENCH_BINARY; without that,
// the first test of a package builds it with scripts/build.sh (the version
// stamped as in a release) and the package's TestMain removes it (Remove).
package testbin

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Env names the prebuilt binary that tests use instead of building one.
const Env = "KAFKA_BENCH_BINARY"

var built struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// Path is the exporter binary: $KAFKA_BENCH_BINARY when set, which must be
// an executable file, else one built on first use and shared by the
// package's tests.
func Path(t testing.TB) string {
	t.Helper()
	if p := os.Getenv(Env); p != "" {
		if err := executable(p); err != nil {
			t.Fatalf("%s %q: %v", Env, p, err)
		}
		return p
	}
	built.once.Do(func() { built.path, built.err = build() })
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

// Remove deletes the binary that Path built, if any; TestMain calls it after
// m.Run.
func Remove() {
	if built.dir == "" {
		return
	}
	if err := os.RemoveAll(built.dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
}

func executable(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return errors.New("not an executable file")
	}
	return nil
}

func build() (string, error) {
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("testbin: go env GOMOD: %w", err)
	}
	root := filepath.Dir(strings.TrimSpace(string(gomod)))
	if built.dir, err = os.MkdirTemp("", "kafka_bench_exporter-test-"); err != nil {
		return "", fmt.Errorf("testbin: %w", err)
	}
	out := filepath.Join(built.dir, "kafka_bench_exporter")
	cmd := exec.Command(filepath.Join(root, "scripts", "build.sh"), out)
	cmd.Dir = root
	// The version comes from git, whatever the environment holds.
	cmd.Env = WithoutVersionEnv(os.Environ())
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("testbin: scripts/build.sh: %w\n%s", err, b)
	}
	return out, nil
}

// WithoutVersionEnv is env without the variables that scripts/build.sh
// stamps into the binary in place of git's.
func WithoutVersionEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		switch strings.SplitN(kv, "=", 2)[0] {
		case "VERSION", "REVISION", "BRANCH", "BUILD_USER", "BUILD_DATE", "SOURCE_DATE_EPOCH":
			continue
		}
		out = append(out, kv)
	}
	return out
}
