package deploy

import (
	"encoding/json"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/kafka-bench/kafka_bench_exporter/alerts"
	"github.com/kafka-bench/kafka_bench_exporter/dashboards"
)

// There is no Docker engine where the tests run, so the Dockerfile is
// checked as text: its stages, the build command it runs, where the binary
// lands and what the ENTRYPOINT calls, the labels, and that .dockerignore
// keeps every file the build needs.

type instruction struct {
	cmd  string // upper case, e.g. "RUN"
	args string
	line int
}

type stage struct {
	image, name string
	instrs      []instruction
}

// parseDockerfile splits a Dockerfile into stages of instructions, joining
// continuation lines and dropping comments as Docker does.
func parseDockerfile(t *testing.T, text string) []stage {
	t.Helper()
	var stages []stage
	var cur strings.Builder
	start := 0
	flush := func() {
		s := strings.TrimSpace(cur.String())
		cur.Reset()
		if s == "" {
			return
		}
		cmd, args, _ := strings.Cut(s, " ")
		in := instruction{cmd: strings.ToUpper(cmd), args: strings.TrimSpace(args), line: start}
		if in.cmd == "FROM" {
			f := strings.Fields(in.args)
			for len(f) > 0 && strings.HasPrefix(f[0], "--") {
				f = f[1:]
			}
			if len(f) == 0 {
				t.Fatalf("Dockerfile:%d: FROM without image", in.line)
			}
			st := stage{image: f[0]}
			if len(f) == 3 && strings.EqualFold(f[1], "AS") {
				st.name = f[2]
			}
			stages = append(stages, st)
		}
		if len(stages) == 0 {
			if in.cmd != "ARG" {
				t.Fatalf("Dockerfile:%d: %s before the first FROM", in.line, in.cmd)
			}
			return
		}
		stages[len(stages)-1].instrs = append(stages[len(stages)-1].instrs, in)
	}
	for i, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "#") || (trimmed == "" && cur.Len() > 0) {
			continue
		}
		if cur.Len() == 0 {
			start = i + 1
		}
		if body, ok := strings.CutSuffix(trimmed, `\`); ok {
			cur.WriteString(body + " ")
			continue
		}
		cur.WriteString(trimmed)
		flush()
	}
	flush()
	return stages
}

func (s stage) all(cmd string) []instruction {
	var out []instruction
	for _, in := range s.instrs {
		if in.cmd == cmd {
			out = append(out, in)
		}
	}
	return out
}

var labelRE = regexp.MustCompile(`([A-Za-z0-9_.\-]+)=("(?:[^"\\]|\\.)*"|\S+)`)

// goVersion is the go directive of go.mod.
func goVersion(t *testing.T) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^go\s+(\S+)\s*$`).FindSubmatch(readFile(t, repoPath(t, "go.mod")))
	if m == nil {
		t.Fatal("go.mod has no go directive")
	}
	return string(m[1])
}

// TestOneGoToolchain ties the places that name the Go toolchain to go.mod's
// go line: the other modules' go lines and the scripts' GOTOOLCHAIN
// (scripts/go-env.sh reads the go line; the README's run command is
// cmd/kafka_bench_exporter's TestDocsGoVersion). A toolchain older than the
// go line never builds this code.
func TestOneGoToolchain(t *testing.T) {
	want := goVersion(t)
	for _, mod := range []string{"deploy/release/go.mod", "deploy/validate/go.mod"} {
		m := regexp.MustCompile(`(?m)^go\s+(\S+)\s*$`).FindSubmatch(readFile(t, repoPath(t, mod)))
		if m == nil || string(m[1]) != want {
			t.Errorf("%s: go line %q, want %s (go.mod's)", mod, m, want)
		}
	}
	cmd := exec.Command("bash", "-c", `. scripts/go-env.sh && echo "$GOTOOLCHAIN"`)
	cmd.Dir = root(t)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("scripts/go-env.sh: %v\n%s", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != "go"+want {
		t.Errorf("scripts/go-env.sh exports GOTOOLCHAIN=%s, want go%s", got, want)
	}
	for _, script := range []string{"scripts/test.sh", "scripts/build.sh", "scripts/release.sh", "scripts/go-tool.sh", "scripts/govulncheck.sh"} {
		if !strings.Contains(string(readFile(t, repoPath(t, script))), "go-env.sh") {
			t.Errorf("%s does not source scripts/go-env.sh: it would build with the machine's own Go", script)
		}
	}
}

func TestDockerfile(t *testing.T) {
	stages := parseDockerfile(t, string(readFile(t, repoPath(t, "Dockerfile"))))
	if len(stages) < 2 {
		t.Fatalf("want a multi-stage build, got %d stage(s)", len(stages))
	}
	builder, final := stages[0], stages[len(stages)-1]

	// Builder: Go of go.mod, running the README's build command.
	if want := "golang:" + goVersion(t); builder.image != want && !strings.HasPrefix(builder.image, want+"-") {
		t.Errorf("builder image %s, want %s (go.mod's go directive), so the build needs no toolchain download", builder.image, want)
	}
	if builder.name == "" {
		t.Fatal("builder stage has no name (FROM ... AS builder)")
	}
	var binary string
	for _, in := range builder.all("RUN") {
		f := strings.Fields(in.args)
		for i, w := range f {
			if (w == "scripts/build.sh" || w == "./scripts/build.sh") && i+1 < len(f) {
				binary = f[i+1]
			}
		}
	}
	if binary == "" {
		t.Fatal("the builder does not RUN scripts/build.sh OUTPUT")
	}

	// Final stage: distroless static nonroot, the binary as exec-form ENTRYPOINT.
	if final.image != "gcr.io/distroless/static-debian12:nonroot" {
		t.Errorf("final image %s, want gcr.io/distroless/static-debian12:nonroot", final.image)
	}
	var installed string
	var copied []string // sources copied from the build context
	for _, in := range final.all("COPY") {
		f := strings.Fields(in.args)
		if len(f) < 2 {
			t.Fatalf("Dockerfile:%d: COPY %s", in.line, in.args)
		}
		var from string
		for len(f) > 0 && strings.HasPrefix(f[0], "--") {
			if v, ok := strings.CutPrefix(f[0], "--from="); ok {
				from = v
			}
			f = f[1:]
		}
		src, dst := f[:len(f)-1], f[len(f)-1]
		if from == builder.name {
			if len(src) == 1 && src[0] == binary {
				installed = dst
				if strings.HasSuffix(dst, "/") {
					installed = dst + path.Base(binary)
				}
			}
			continue
		}
		if from == "" {
			for _, s := range src {
				copied = append(copied, s)
				if !strings.HasPrefix(dst, "/usr/share/kafka_bench_exporter/") {
					t.Errorf("Dockerfile:%d: %s is copied to %s, want below /usr/share/kafka_bench_exporter/", in.line, s, dst)
				}
			}
		}
	}
	if installed == "" {
		t.Fatalf("the final stage does not COPY --from=%s %s", builder.name, binary)
	}
	ep := final.all("ENTRYPOINT")
	if len(ep) != 1 {
		t.Fatalf("want one ENTRYPOINT in the final stage, got %d", len(ep))
	}
	var argv []string
	if err := json.Unmarshal([]byte(ep[0].args), &argv); err != nil || len(argv) == 0 {
		t.Fatalf("ENTRYPOINT %s is not the exec form (a JSON array): %v", ep[0].args, err)
	}
	if argv[0] != installed {
		t.Errorf("ENTRYPOINT runs %s, but the binary is installed at %s", argv[0], installed)
	}
	var exposed []string
	for _, in := range final.all("EXPOSE") {
		exposed = append(exposed, strings.Fields(in.args)...)
	}
	if !slices.Contains(exposed, "10092") && !slices.Contains(exposed, "10092/tcp") {
		t.Errorf("EXPOSE %v, want 10092", exposed)
	}
	users := final.all("USER")
	if len(users) == 0 {
		t.Error("the final stage sets no USER; runAsNonRoot needs a numeric non-root user")
	} else if u, _, _ := strings.Cut(users[len(users)-1].args, ":"); u == "0" || u == "root" || strings.Trim(u, "0123456789") != "" {
		t.Errorf("USER %s, want a numeric non-root uid (Kubernetes runAsNonRoot cannot check a name)", users[len(users)-1].args)
	}
	labels := map[string]string{}
	for _, in := range final.all("LABEL") {
		for _, m := range labelRE.FindAllStringSubmatch(in.args, -1) {
			labels[m[1]] = strings.Trim(m[2], `"`)
		}
	}
	for _, k := range []string{"title", "description", "source", "version", "revision", "created", "licenses"} {
		if labels["org.opencontainers.image."+k] == "" {
			t.Errorf("no LABEL org.opencontainers.image.%s", k)
		}
	}

	// The dashboards and rule files go into the image, all of them.
	var got []string
	for _, s := range copied {
		matches, err := filepath.Glob(repoPath(t, s))
		if err != nil || len(matches) == 0 {
			t.Errorf("COPY %s matches no file", s)
		}
		for _, m := range matches {
			rel, _ := filepath.Rel(root(t), m)
			got = append(got, filepath.ToSlash(rel))
		}
	}
	var want []string
	dnames, err := dashboards.FileNames()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range dnames {
		want = append(want, "dashboards/"+n)
	}
	anames, err := alerts.FileNames()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range anames {
		want = append(want, "alerts/"+n)
	}
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("the image gets %v, want the dashboards and rule files %v", got, want)
	}

	checkDockerignore(t, append(want, "scripts/build.sh"))
}

// checkDockerignore: .dockerignore keeps .git out and every file the build
// reads in: go.mod, go.sum, the Go and embedded files of every package of
// the module the binary imports, and extra (the COPY sources).
func checkDockerignore(t *testing.T, extra []string) {
	t.Helper()
	ign := parseDockerignore(string(readFile(t, repoPath(t, ".dockerignore"))))
	if !ign.ignored(".git/HEAD") {
		t.Error(".dockerignore does not exclude .git")
	}
	need := append([]string{"go.mod", "go.sum"}, extra...)
	cmd := exec.Command("go", "list", "-deps", "-f",
		`{{if .Module}}{{if .Module.Main}}{{.Dir}}{{range .GoFiles}} {{.}}{{end}}{{range .EmbedFiles}} {{.}}{{end}}{{end}}{{end}}`,
		"./cmd/kafka_bench_exporter")
	cmd.Dir = root(t)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for line := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		rel, err := filepath.Rel(root(t), f[0])
		if err != nil {
			t.Fatal(err)
		}
		for _, file := range f[1:] {
			need = append(need, filepath.ToSlash(filepath.Join(rel, file)))
		}
	}
	if len(need) < 10 {
		t.Fatalf("go list found only %v", need)
	}
	for _, p := range need {
		if ign.ignored(p) {
			t.Errorf(".dockerignore excludes %s, which the image build needs", p)
		}
	}
}

type ignoreRule struct {
	re     *regexp.Regexp
	negate bool
}

type dockerignore []ignoreRule

// parseDockerignore implements the .dockerignore rules the file uses:
// comments, ! exceptions, *, ?, ** and a leading /; a pattern that matches a
// directory excludes everything below it.
func parseDockerignore(text string) dockerignore {
	var rules dockerignore
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		r := ignoreRule{}
		if p, ok := strings.CutPrefix(line, "!"); ok {
			r.negate, line = true, strings.TrimSpace(p)
		}
		line = strings.TrimPrefix(path.Clean("/"+line), "/")
		var re strings.Builder
		re.WriteString("^")
		for i := 0; i < len(line); i++ {
			switch c := line[i]; {
			case strings.HasPrefix(line[i:], "**/"):
				re.WriteString("(.*/)?")
				i += 2
			case strings.HasPrefix(line[i:], "**"):
				re.WriteString(".*")
				i++
			case c == '*':
				re.WriteString("[^/]*")
			case c == '?':
				re.WriteString("[^/]")
			default:
				re.WriteString(regexp.QuoteMeta(string(c)))
			}
		}
		re.WriteString("(/.*)?$")
		r.re = regexp.MustCompile(re.String())
		rules = append(rules, r)
	}
	return rules
}

func (d dockerignore) ignored(p string) bool {
	ignored := false
	for _, r := range d {
		if r.re.MatchString(p) {
			ignored = !r.negate
		}
	}
	return ignored
}

func TestDockerignoreMatcher(t *testing.T) {
	d := parseDockerignore("# c\n.git\n/dist\n**/*_test.go\n**/testdata\n!keep/testdata\nalerts/tests\n")
	for p, want := range map[string]bool{
		".git/HEAD": true, "dist/x": true, "a/b_test.go": true, "b_test.go": true, "config/testdata/x.yml": true,
		"keep/testdata/y": false, "alerts/tests/a.yml": true, "alerts/alerts.yml": false, "go.mod": false, "distx": false,
	} {
		if got := d.ignored(p); got != want {
			t.Errorf("ignored(%q) = %v, want %v", p, got, want)
		}
	}
}
