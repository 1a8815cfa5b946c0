package deploy

import (
	"debug/buildinfo"
	"debug/elf"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kafka-bench/kafka_bench_exporter/internal/testbin"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testenv"
)

// scripts/build.sh stamps the version fields it is given into the binary, and
// the binary is static and built with -trimpath: what the distroless image
// needs.
func TestBuildScriptInjectsVersion(t *testing.T) {
	// A relative output path is relative to the caller's directory.
	dir := t.TempDir()
	cmd := exec.Command(repoPath(t, "scripts/build.sh"), "out/kbe")
	cmd.Dir = dir
	cmd.Env = append(testbin.WithoutVersionEnv(cmd.Environ()),
		"VERSION=9.8.7-deploytest",
		"REVISION=0123456789abcdef0123456789abcdef01234567",
		"BRANCH=deploy-test-branch",
		"BUILD_USER=tester@deploytest",
		"BUILD_DATE=20260102-03:04:05",
	)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("scripts/build.sh: %v\n%s", err, b)
	}
	bin := filepath.Join(dir, "out", "kbe")
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("--version: %v\n%s", err, out)
	}
	for _, want := range []string{
		"version 9.8.7-deploytest",
		"revision: 0123456789abcdef0123456789abcdef01234567",
		"branch: deploy-test-branch",
		"build user:       tester@deploytest",
		"build date:       20260102-03:04:05",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("--version lacks %q:\n%s", want, out)
		}
	}

	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }() // opened for reading: nothing to lose
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Errorf("binary is dynamically linked (%v); the distroless static image cannot run it", p.Type)
		}
	}
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	if settings["CGO_ENABLED"] != "0" {
		t.Errorf("CGO_ENABLED = %q, want 0", settings["CGO_ENABLED"])
	}
	if settings["-trimpath"] != "true" {
		t.Errorf("-trimpath = %q, want true", settings["-trimpath"])
	}
}

// Without version environment, in a git checkout, the revision is git's HEAD.
func TestBuildScriptRevisionFromGit(t *testing.T) {
	git := exec.Command("git", "rev-parse", "HEAD")
	git.Dir = root(t)
	before, err := git.Output()
	if err != nil {
		if testenv.Strict() {
			t.Fatalf("git rev-parse HEAD: %v; the suite runs in a git checkout", err)
		}
		t.Skipf("not a git checkout (%v): the revision comes from REVISION", err)
	}
	out, err := exec.Command(gitStampedBinary(t), "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("--version: %v\n%s", err, out)
	}
	git = exec.Command("git", "rev-parse", "HEAD")
	git.Dir = root(t)
	after, _ := git.Output()
	// The lead may commit while the test runs: either HEAD will do.
	b, a := strings.TrimSpace(string(before)), strings.TrimSpace(string(after))
	if !strings.Contains(string(out), "revision: "+b) && !strings.Contains(string(out), "revision: "+a) {
		t.Errorf("--version does not show git HEAD %s:\n%s", b, out)
	}
	if strings.Contains(string(out), "version unknown") {
		t.Errorf("--version shows no version from git describe:\n%s", out)
	}
}
