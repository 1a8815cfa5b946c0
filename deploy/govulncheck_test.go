package deploy

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// scripts/govulncheck.sh, the vulnerability gate of scripts/test.sh and
// scripts/release.sh, on the module in testdata/vulncheck: it requires
// golang.org/x/text v0.3.6, whose language.Parse has a known vulnerability
// (GO-2021-0113, fixed in v0.3.7). Its command reachable calls Parse; its
// command unreached imports the package and calls nothing vulnerable. The
// exporter's own modules pass the gate in the suite's govulncheck step.

const (
	vulnFixture = "deploy/testdata/vulncheck"
	fixtureVuln = "GO-2021-0113"
)

// shellEnv is the environment of the shell that ran go test, as far as it
// can be told: without the GOROOT that go test sets for its toolchain and
// the $GOROOT/bin it puts in front of PATH, so that a go command found on
// PATH is the machine's own (go1.26.8 on a fresh one), and with
// GOTOOLCHAIN=local, so that only the script's GOTOOLCHAIN can select
// another.
func shellEnv() []string {
	goBin := filepath.Join(os.Getenv("GOROOT"), "bin")
	var env []string
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "GOROOT", "GOTOOLCHAIN":
			continue
		case "PATH":
			first, rest, ok := strings.Cut(v, string(os.PathListSeparator))
			if ok && os.Getenv("GOROOT") != "" && first == goBin {
				kv = "PATH=" + rest
			}
		}
		env = append(env, kv)
	}
	return append(env, "GOTOOLCHAIN=local")
}

// govulncheckScript runs scripts/govulncheck.sh with args from the shell's
// environment and returns its stdout, its stderr and its exit code.
func govulncheckScript(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(repoPath(t, "scripts/govulncheck.sh"), args...)
	cmd.Env = shellEnv()
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.ExitCode()
	default:
		t.Fatalf("scripts/govulncheck.sh %s: %v", strings.Join(args, " "), err)
	}
	return o.String(), e.String(), code
}

// The source scan fails on a reachable vulnerability, with exit code 3, and
// prints it with the call that reaches it; a vulnerable package that is
// imported but not called passes.
func TestGovulncheckSource(t *testing.T) {
	fixture := repoPath(t, vulnFixture)
	out, stderr, code := govulncheckScript(t, "-C", fixture, "./reachable")
	if code != 3 {
		t.Errorf("scripts/govulncheck.sh ./reachable: exit code %d, want 3 (vulnerabilities found)\n%s%s", code, out, stderr)
	}
	for _, w := range []string{"Vulnerability #1: " + fixtureVuln, "Found in: golang.org/x/text@v0.3.6", "reachable.main calls language.Parse"} {
		if !strings.Contains(out, w) {
			t.Errorf("scripts/govulncheck.sh ./reachable: the findings lack %q:\n%s%s", w, out, stderr)
		}
	}
	if w := "govulncheck.sh: reachable vulnerabilities (above)"; !strings.Contains(stderr, w) {
		t.Errorf("scripts/govulncheck.sh ./reachable: stderr lacks %q:\n%s", w, stderr)
	}

	out, stderr, code = govulncheckScript(t, "-C", fixture, "./unreached")
	if code != 0 || !strings.Contains(out, "No vulnerabilities found.") || strings.Contains(out, "Vulnerability #") {
		t.Errorf("scripts/govulncheck.sh ./unreached: exit code %d, want 0 and no vulnerability\n%s%s", code, out, stderr)
	}
}

// The release's scan of a built binary fails on the vulnerable symbol that
// the binary holds.
func TestGovulncheckBinary(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "reachable")
	build := exec.Command("go", "build", "-C", repoPath(t, vulnFixture), "-o", bin, "./reachable")
	build.Env = append(shellEnv(), "GOTOOLCHAIN=go"+goVersion(t))
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./reachable: %v\n%s", err, out)
	}
	out, stderr, code := govulncheckScript(t, "-mode", "binary", bin)
	if code != 3 || !strings.Contains(out, "Vulnerability #1: "+fixtureVuln) || !strings.Contains(out, "#1: language.Parse") {
		t.Errorf("scripts/govulncheck.sh -mode binary: exit code %d, want 3 naming %s in language.Parse\n%s%s", code, fixtureVuln, out, stderr)
	}
}

// The scan runs the pinned govulncheck on the database of the pinned
// golang.org/x/vulndb, read from a file, and analyses the code with go.mod's
// toolchain: the standard library checked is that of the go line, whatever
// the go command on PATH.
func TestGovulncheckPins(t *testing.T) {
	script := string(readFile(t, repoPath(t, "scripts/govulncheck.sh")))
	pin := func(name string) string {
		m := regexp.MustCompile(`(?m)^` + name + `=(\S+)$`).FindStringSubmatch(script)
		if m == nil {
			t.Fatalf("scripts/govulncheck.sh pins no %s", name)
		}
		return m[1]
	}
	out, stderr, code := govulncheckScript(t, "-C", repoPath(t, vulnFixture), "-format", "json", "./unreached")
	if code != 0 {
		t.Fatalf("scripts/govulncheck.sh -format json: exit code %d\n%s", code, stderr)
	}
	var config struct {
		ScannerVersion string `json:"scanner_version"`
		DB             string `json:"db"`
		GoVersion      string `json:"go_version"`
		ScanMode       string `json:"scan_mode"`
	}
	dec := json.NewDecoder(strings.NewReader(out))
	for {
		var msg struct {
			Config *json.RawMessage `json:"config"`
		}
		err := dec.Decode(&msg)
		if errors.Is(err, io.EOF) {
			t.Fatalf("govulncheck -format json wrote no config:\n%s", out)
		}
		if err != nil {
			t.Fatal(err)
		}
		if msg.Config != nil {
			if err := json.Unmarshal(*msg.Config, &config); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	if want := pin("GOVULNCHECK_VERSION"); config.ScannerVersion != want {
		t.Errorf("govulncheck %s, want %s", config.ScannerVersion, want)
	}
	if want := "/vulndb-" + pin("VULNDB_VERSION") + "/db"; !strings.HasPrefix(config.DB, "file:///") || !strings.HasSuffix(config.DB, want) {
		t.Errorf("database %q, want file:///…%s", config.DB, want)
	}
	if want := "go" + goVersion(t); config.GoVersion != want || config.ScanMode != "source" {
		t.Errorf("%s scan with %s, want a source scan with %s (go.mod's go line)", config.ScanMode, config.GoVersion, want)
	}
}
