package deploy

import (
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kafka-bench/kafka_bench_exporter/internal/doccheck"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testenv"
)

// releaseDocs are the name=path entries scripts/release.sh puts beside the
// binary in every platform archive.
func releaseDocs(t *testing.T) []string {
	t.Helper()
	testenv.Tool(t, "git")
	cmd := exec.Command(repoPath(t, "scripts/release.sh"), "docs")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("scripts/release.sh docs: %v", err)
	}
	return strings.Fields(string(out))
}

// archiveNames are the names an archive under prefix holds for the
// binary and docs: the files and every folder above them.
func archiveNames(prefix, binary string, docs []string) []string {
	names := []string{prefix, prefix + binary}
	for _, d := range docs {
		name, _, _ := strings.Cut(d, "=")
		names = append(names, prefix+name)
		for dir := path.Dir(name); dir != "."; dir = path.Dir(dir) {
			names = append(names, prefix+dir+"/")
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// shippedLinks writes the files of an archive (names below prefix) to a
// folder and checks the links of each Markdown file among them there: a
// link that leaves the archive is a problem.
func shippedLinks(t *testing.T, files map[string]tarFile, prefix string) []string {
	t.Helper()
	dir := t.TempDir()
	var pages []string
	for name, f := range files {
		rel, ok := strings.CutPrefix(name, prefix)
		if !ok || rel == "" || strings.HasSuffix(rel, "/") {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.data, 0o644); err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(rel, ".md") {
			pages = append(pages, rel)
		}
	}
	slices.Sort(pages)
	var problems []string
	for _, page := range pages {
		d, err := doccheck.Load(dir, page)
		if err != nil {
			t.Fatal(err)
		}
		problems = append(problems, d.CheckLinks(dir)...)
	}
	return problems
}

// A platform archive, made as scripts/release.sh makes it (its list of
// files, the release tool's archive command) around a stand-in binary,
// holds the README and what it links to: every relative link and anchor of
// its Markdown files resolves inside it. TestRelease checks the real
// archives hold the same names.
func TestReleaseArchiveLinks(t *testing.T) {
	docs := releaseDocs(t)
	tmp := t.TempDir()
	tool := filepath.Join(tmp, "release")
	build := exec.Command("go", "build", "-C", repoPath(t, "deploy/release"), "-trimpath", "-o", tool, ".")
	build.Env = append(os.Environ(), "GOFLAGS=-buildvcs=false", "GOWORK=off")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build deploy/release: %v\n%s", err, out)
	}
	bin := filepath.Join(tmp, "kafka_bench_exporter")
	if err := os.WriteFile(bin, []byte("stand-in"), 0o755); err != nil {
		t.Fatal(err)
	}
	const prefix = "kafka_bench_exporter-v1.2.3.linux-amd64/"
	archive := filepath.Join(tmp, "a.tar.gz")
	cmd := exec.Command(tool, append([]string{"archive", "-o", archive, "-mtime", "0", "-prefix", prefix, "kafka_bench_exporter=" + bin}, docs...)...)
	cmd.Dir = root(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("release archive: %v\n%s", err, out)
	}
	files := readTarGzFiles(t, archive)
	if got, want := slices.Sorted(maps.Keys(files)), archiveNames(prefix, "kafka_bench_exporter", docs); !slices.Equal(got, want) {
		t.Errorf("archive holds %v, want %v", got, want)
	}
	for _, name := range []string{"README.md", "docs/configuration.md", "docs/report.png"} {
		if _, ok := files[prefix+name]; !ok {
			t.Errorf("the archive lacks %s, which README.md links (directly or through docs/)", name)
		}
	}
	for _, p := range shippedLinks(t, files, prefix) {
		t.Errorf("a link of a shipped page leaves the archive: %s", p)
	}

	// The chart's archive is its folder: its README links stay inside.
	const chart = "deploy/helm/kafka-bench-exporter"
	d, err := doccheck.Load(repoPath(t, chart), "README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range d.CheckLinks(repoPath(t, chart)) {
		t.Errorf("a link of the chart's README leaves the chart: %s/%s", chart, p)
	}

	t.Run("a page left out is a dangling link", func(t *testing.T) {
		delete(files, prefix+"docs/security.md")
		problems := shippedLinks(t, files, prefix)
		readme := string(readFile(t, repoPath(t, "README.md")))
		line := strings.Count(readme[:strings.Index(readme, "(docs/security.md)")], "\n") + 1
		if want := "README.md:" + strconv.Itoa(line) + ": link to docs/security.md: no such file"; !slices.Contains(problems, want) {
			t.Errorf("want %q among %q", want, problems)
		}
		d := doccheck.Parse("README.md", "# Chart\n\n[Runbooks](../../../docs/runbooks.md)\n")
		if got, want := d.CheckLinks(repoPath(t, chart)), "README.md:3: link to ../../../docs/runbooks.md: outside the folder the page ships in"; !slices.Equal(got, []string{want}) {
			t.Errorf("chart README linking out of the chart: %q, want %q", got, want)
		}
	})
}
