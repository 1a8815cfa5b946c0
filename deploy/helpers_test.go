package deploy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/kafka-bench/kafka_bench_exporter/internal/testbin"
)

// buildDir holds the exporter binary that the tests share; TestMain removes it.
var buildDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "deploy-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	buildDir = dir
	code := m.Run()
	testbin.Remove()
	if err := os.RemoveAll(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	os.Exit(code)
}

// root is the module root (tests run in deploy/).
func root(t testing.TB) string {
	t.Helper()
	r, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// repoPath is a path below the module root.
func repoPath(t testing.TB, rel string) string {
	return filepath.Join(root(t), filepath.FromSlash(rel))
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// madeOnce is a file that the package's tests share, made by the first one
// that needs it (a built binary).
type madeOnce struct {
	once sync.Once
	path string
	err  error
}

func (m *madeOnce) get(t testing.TB, build func() (string, error)) string {
	t.Helper()
	m.once.Do(func() { m.path, m.err = build() })
	if m.err != nil {
		t.Fatal(m.err)
	}
	return m.path
}

// scriptTool is the path that `script path` prints: a CLI that the script
// builds from its Go module into the cache when missing, once per test run.
func scriptTool(t testing.TB, m *madeOnce, script string) string {
	t.Helper()
	return m.get(t, func() (string, error) {
		var stderr bytes.Buffer
		cmd := exec.Command(repoPath(t, script), "path")
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return "", fmt.Errorf("%s path: %w\n%s", script, err, stderr.String())
		}
		return strings.TrimSpace(string(out)), nil
	})
}

// exporterBinary is the exporter binary of the test run (internal/testbin).
func exporterBinary(t testing.TB) string {
	t.Helper()
	return testbin.Path(t)
}

var gitBinary madeOnce

// gitStampedBinary is the exporter built here by scripts/build.sh with the
// version taken from git (no version environment): the test of that stamping
// cannot take a prebuilt $KAFKA_BENCH_BINARY, which may come from elsewhere.
func gitStampedBinary(t testing.TB) string {
	t.Helper()
	return gitBinary.get(t, func() (string, error) {
		out := filepath.Join(buildDir, "kafka_bench_exporter")
		cmd := exec.Command(repoPath(t, "scripts/build.sh"), out)
		cmd.Env = testbin.WithoutVersionEnv(os.Environ())
		if b, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("scripts/build.sh: %w\n%s", err, b)
		}
		return out, nil
	})
}

// configCheck runs the exporter with args plus --config.check, the way a
// manifest would start it, and fails the test unless it exits 0: every flag
// exists and the configuration file is valid.
func configCheck(t testing.TB, what string, args []string) {
	t.Helper()
	cmd := exec.Command(exporterBinary(t), append(append([]string{}, args...), "--config.check")...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Errorf("%s: kafka_bench_exporter %s --config.check: %v\n%s", what, strings.Join(args, " "), err, stderr.String())
	}
}

// replaceConfigFile returns args with the value of --config.file replaced by
// file, and the original value.
func replaceConfigFile(t testing.TB, args []string, file string) ([]string, string) {
	t.Helper()
	out := append([]string{}, args...)
	for i, a := range out {
		if v, ok := strings.CutPrefix(a, "--config.file="); ok {
			out[i] = "--config.file=" + file
			return out, v
		}
	}
	t.Fatalf("no --config.file=... in %q", args)
	return nil, ""
}

// yamlDocs parses every document of a YAML file into generic values.
func yamlDocs(t testing.TB, path string) []map[string]any {
	t.Helper()
	return parseYAMLDocs(t, path, readFile(t, path))
}

// parseYAMLDocs parses every document of b (named what in errors).
func parseYAMLDocs(t testing.TB, what string, b []byte) []map[string]any {
	t.Helper()
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var docs []map[string]any
	for {
		var d map[string]any
		err := dec.Decode(&d)
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			t.Fatalf("%s: document %d: %v", what, len(docs)+1, err)
		}
		if d != nil {
			docs = append(docs, d)
		}
	}
	return docs
}

// get walks a generic YAML value along keys (strings for mappings, ints for
// sequences) and returns nil when a step is missing.
func get(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			s, ok := v.([]any)
			if !ok || k >= len(s) {
				return nil
			}
			v = s[k]
		}
	}
	return v
}

func getString(v any, path ...any) string {
	s, _ := get(v, path...).(string)
	return s
}

func getList(v any, path ...any) []any {
	s, _ := get(v, path...).([]any)
	return s
}

func getMap(v any, path ...any) map[string]any {
	m, _ := get(v, path...).(map[string]any)
	return m
}

func stringList(v []any) []string {
	var out []string
	for _, x := range v {
		out = append(out, fmt.Sprint(x))
	}
	return out
}

var quantityRE = regexp.MustCompile(`^([0-9.]+)(m|k|M|G|Ki|Mi|Gi)?$`)

// quantity parses a Kubernetes resource quantity (the forms used here:
// plain, milli, decimal and binary suffixes) into a float.
func quantity(t testing.TB, q any) float64 {
	t.Helper()
	s := fmt.Sprint(q)
	m := quantityRE.FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("quantity %q: unsupported form", s)
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatalf("quantity %q: %v", s, err)
	}
	mult := map[string]float64{"": 1, "m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30}[m[2]]
	return v * mult
}
