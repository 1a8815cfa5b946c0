package kafkatest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// kafkaScript is the script (relative to the repo root) that pins the Kafka
// version and resolves its jars; this package never downloads anything itself.
const kafkaScript = "scripts/kafka.sh"

// repoRoot finds the module root holding scripts/kafka.sh. The source file's
// own directory works for `go test` and `go run`; the working directory and
// `go env GOMOD` cover binaries built with -trimpath or moved elsewhere.
func repoRoot(ctx context.Context) (string, error) {
	var starts []string
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		starts = append(starts, filepath.Dir(file))
	}
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	for _, start := range starts {
		for dir := start; ; {
			if isRepoRoot(dir) {
				return dir, nil
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err == nil {
		if dir := filepath.Dir(strings.TrimSpace(string(out))); isRepoRoot(dir) {
			return dir, nil
		}
	}
	return "", fmt.Errorf("kafkatest: cannot find the repository root (a directory with go.mod and %s) above %v", kafkaScript, starts)
}

func isRepoRoot(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		return false
	}
	_, err := os.Stat(filepath.Join(dir, kafkaScript))
	return err == nil
}

// kafkaLib runs `scripts/kafka.sh lib` and returns the lib dir and the log4j2
// config that the script keeps next to it, and the Kafka version they are of;
// want, when set, is the script's KAFKA_VERSION.
func kafkaLib(ctx context.Context, want string, logf func(string, ...any)) (lib, log4j, version string, err error) {
	root, err := repoRoot(ctx)
	if err != nil {
		return "", "", "", err
	}
	var env []string // nil: ours
	if want != "" {
		env = append(os.Environ(), "KAFKA_VERSION="+want)
	}
	if lib, log4j, err = scriptLib(ctx, root, "lib", env, logf); err != nil {
		return "", "", "", err
	}
	// The script's own name for the version (its default, or KAFKA_VERSION).
	ver := exec.CommandContext(ctx, "bash", filepath.Join(root, kafkaScript), "version")
	ver.Env = env
	out, err := ver.Output()
	if err != nil {
		return "", "", "", fmt.Errorf("kafkatest: %s version: %w", kafkaScript, err)
	}
	return lib, log4j, strings.TrimSpace(string(out)), nil
}

// mirrorLib runs `scripts/kafka.sh mirror-lib` and returns the MirrorMaker
// lib dir and the log4j2 config kept next to it.
func mirrorLib(ctx context.Context, logf func(string, ...any)) (lib, log4j string, err error) {
	root, err := repoRoot(ctx)
	if err != nil {
		return "", "", err
	}
	return scriptLib(ctx, root, "mirror-lib", nil, logf)
}

// scriptLib runs `scripts/kafka.sh <sub>` with env (nil: ours) and returns
// the lib dir it prints and the log4j2 config the script keeps next to it.
func scriptLib(ctx context.Context, root, sub string, env []string, logf func(string, ...any)) (lib, log4j string, err error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "bash", filepath.Join(root, kafkaScript), sub)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", "", fmt.Errorf("kafkatest: %s %s: %w\n%s", kafkaScript, sub, err, strings.TrimSpace(stderr.String()))
	}
	if s := strings.TrimSpace(stderr.String()); s != "" {
		logf("%s", s) // first run: download progress
	}
	lib = strings.TrimSpace(stdout.String())
	if lib == "" || !filepath.IsAbs(lib) {
		return "", "", fmt.Errorf("kafkatest: %s %s printed %q, want an absolute path", kafkaScript, sub, lib)
	}
	log4j = filepath.Join(filepath.Dir(lib), "log4j2.properties")
	if _, err := os.Stat(log4j); err != nil {
		return "", "", fmt.Errorf("kafkatest: log4j2 config next to the %s dir: %w", sub, err)
	}
	return lib, log4j, nil
}
