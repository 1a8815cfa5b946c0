package main

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	cases := []struct {
		bi              debug.BuildInfo
		wantV, wantDate string
	}{
		{debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3", ""}, // go install ...@v1.2.3
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "3b118b7"}, {Key: "vcs.time", Value: "2026-11-30T12:00:00Z"}}}, "(devel)", "2026-11-30T12:00:00Z"},
		{debug.BuildInfo{}, "(devel)", ""},
	}
	for _, c := range cases {
		if v, date := fromBuildInfo(&c.bi); v != c.wantV || date != c.wantDate {
			t.Errorf("fromBuildInfo(%+v) = %q, %q; want %q, %q", c.bi.Main, v, date, c.wantV, c.wantDate)
		}
	}
}

// A plain `go build` (no -ldflags, as `go run` and `go install`) reports a
// version, not an empty one.
//
// It builds its own binary: the shared one (internal/testbin) is stamped by
// scripts/build.sh's -ldflags, which is what this test must go without.
func TestVersionWithoutLdflags(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "kafka_bench_exporter")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("--version: %v\n%s", err, out)
	}
	if !regexp.MustCompile(`version \S+ \(branch`).Match(out) {
		t.Errorf("--version of a build without ldflags shows no version:\n%s", out)
	}
}
