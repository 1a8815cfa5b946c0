package deploy

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/internal/testbin"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testenv"
)

// The release script on a temporary tag, in a snapshot of this tree that is
// its own git repository (so no tag touches this one), for the host
// platform: its artifacts, their reproducibility, the binary's version, the
// chart's image tag, and the image — compared with the Dockerfile and run
// under runc.

const (
	releaseTag   = "v1.2.3"
	releaseImage = "ghcr.io/kafka-bench/kafka_bench_exporter:" + releaseTag
	// The snapshot's commit time, and so every mtime in the release.
	releaseCommitTime = "2026-01-02T03:04:05Z"
)

func TestRelease(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the release's image is linux only; the test runs it")
	}
	testenv.Tool(t, "git")
	repo, commit := releaseRepo(t)

	// Untagged, the version is Go's pseudo-version of the commit.
	hash12 := commit[:12]
	if got, want := buildPrintVersion(t, repo), "v0.0.0-20260102030405-"+hash12; got != want {
		t.Errorf("untagged: scripts/build.sh --print-version = %q, want %q", got, want)
	}
	// Refused, with the field and the value named: a version that is not a
	// semantic version tag, and a tag that is not there.
	for version, want := range map[string]string{
		"1.2":      `release.sh: VERSION = "1.2": want a semantic version tag such as v0.1.0`,
		releaseTag: `release.sh: tag ` + releaseTag + ` = "none": want it on HEAD ` + commit,
	} {
		cmd := exec.Command(filepath.Join(repo, "scripts/release.sh"), version)
		cmd.Env = append(testbin.WithoutVersionEnv(os.Environ()), "RELEASE_DIR="+t.TempDir(), "RELEASE_COMPAT=0")
		if out, err := cmd.CombinedOutput(); err == nil || !strings.HasPrefix(string(out), want) {
			t.Errorf("scripts/release.sh %s: %v\n%s\nwant an error starting %q", version, err, out, want)
		}
	}
	git(t, repo, "tag", "-a", releaseTag, "-m", releaseTag)
	if got := buildPrintVersion(t, repo); got != releaseTag {
		t.Errorf("tagged: scripts/build.sh --print-version = %q, want %q", got, releaseTag)
	}

	tmp := t.TempDir()
	first := runRelease(t, repo, filepath.Join(tmp, "first"))
	second := runRelease(t, repo, filepath.Join(tmp, "second"))

	platform := runtime.GOOS + "-" + runtime.GOARCH
	name := "kafka_bench_exporter-" + releaseTag + "." + platform
	want := []string{
		"SHA256SUMS",
		"kafka-bench-exporter-" + releaseTag + ".tgz",
		name + ".cdx.json",
		name + ".govulncheck.txt",
		name + ".tar.gz",
		"kafka_bench_exporter-" + releaseTag + ".monitoring.tar.gz",
		"kafka_bench_exporter-" + releaseTag + ".oci.tar",
	}
	sort.Strings(want)

	t.Run("Artifacts", func(t *testing.T) {
		if got := dirNames(t, first); !slices.Equal(got, want) {
			t.Fatalf("release directory holds %v, want %v", got, want)
		}
		sums := parseSums(t, filepath.Join(first, "SHA256SUMS"))
		for _, f := range want {
			if f == "SHA256SUMS" {
				continue
			}
			sum := sha256.Sum256(readFile(t, filepath.Join(first, f)))
			if sums[f] != hex.EncodeToString(sum[:]) {
				t.Errorf("SHA256SUMS: %s = %q, the file's is %x", f, sums[f], sum)
			}
		}
		if len(sums) != len(want)-1 {
			t.Errorf("SHA256SUMS lists %d files, want %d", len(sums), len(want)-1)
		}
	})

	t.Run("Reproducible", func(t *testing.T) {
		a, b := readFile(t, filepath.Join(first, "SHA256SUMS")), readFile(t, filepath.Join(second, "SHA256SUMS"))
		if !bytes.Equal(a, b) {
			t.Errorf("two runs on one commit differ:\nfirst:\n%s\nsecond:\n%s", a, b)
		}
	})

	ts, err := time.Parse(time.RFC3339, releaseCommitTime)
	if err != nil {
		t.Fatal(err)
	}
	var binary []byte
	t.Run("Archive", func(t *testing.T) {
		files := readTarGzFiles(t, filepath.Join(first, name+".tar.gz"))
		var names []string
		for n, f := range files {
			names = append(names, n)
			if !f.ModTime.Equal(ts) || f.Uid != 0 || f.Gid != 0 || f.Uname != "" || f.Gname != "" {
				t.Errorf("%s: mtime %v uid %d gid %d %q/%q, want the commit time %v and 0/0 without names", n, f.ModTime, f.Uid, f.Gid, f.Uname, f.Gname, ts)
			}
		}
		sort.Strings(names)
		// The binary, and the README with the pages it links to
		// (TestReleaseArchiveLinks: every link resolves inside).
		wantNames := archiveNames(name+"/", "kafka_bench_exporter", releaseDocs(t))
		if !slices.Equal(names, wantNames) {
			t.Fatalf("archive holds %v, want %v", names, wantNames)
		}
		for _, f := range []string{"LICENSE", "NOTICE", "README.md", "docs/deploy.md", "docs/report.png"} {
			if !bytes.Equal(files[name+"/"+f].data, readFile(t, repoPath(t, f))) {
				t.Errorf("the archive's %s is not the repository's", f)
			}
		}
		binary = files[name+"/kafka_bench_exporter"].data
		bin := filepath.Join(t.TempDir(), "kafka_bench_exporter")
		cfg := filepath.Join(filepath.Dir(bin), "config.example.yml")
		if err := os.WriteFile(bin, binary, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(cfg, files[name+"/config.example.yml"].data, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(bin, "--version").CombinedOutput()
		if err != nil {
			t.Fatalf("--version: %v\n%s", err, out)
		}
		for _, w := range []string{"version " + releaseTag + " ", "revision: " + commit} {
			if !strings.Contains(string(out), w) {
				t.Errorf("--version lacks %q:\n%s", w, out)
			}
		}
		if out, err := exec.Command(bin, "--config.file="+cfg, "--config.check").CombinedOutput(); err != nil {
			t.Errorf("the archive's config.example.yml: --config.check: %v\n%s", err, out)
		}

		mon := readTarGzFiles(t, filepath.Join(first, "kafka_bench_exporter-"+releaseTag+".monitoring.tar.gz"))
		prefix := "kafka_bench_exporter-" + releaseTag + ".monitoring/"
		for _, f := range monitoringFiles(t) {
			if got, ok := mon[prefix+f]; !ok || !bytes.Equal(got.data, readFile(t, repoPath(t, f))) {
				t.Errorf("the monitoring archive lacks %s%s or holds another one", prefix, f)
			}
		}
	})

	t.Run("SBOM", func(t *testing.T) {
		var bom struct {
			BOMFormat    string `json:"bomFormat"`
			SerialNumber string `json:"serialNumber"`
			Metadata     struct {
				Timestamp string `json:"timestamp"`
				Component struct {
					Name, Version string
				} `json:"component"`
			} `json:"metadata"`
			Components []struct {
				Name, Version, Purl string
			} `json:"components"`
		}
		if err := json.Unmarshal(readFile(t, filepath.Join(first, name+".cdx.json")), &bom); err != nil {
			t.Fatal(err)
		}
		if bom.BOMFormat != "CycloneDX" || bom.Metadata.Component.Version != releaseTag ||
			!strings.Contains(bom.Metadata.Component.Name, "kafka_bench_exporter") {
			t.Errorf("SBOM format %q, component %+v; want CycloneDX for kafka_bench_exporter %s", bom.BOMFormat, bom.Metadata.Component, releaseTag)
		}
		if bom.SerialNumber != "" || bom.Metadata.Timestamp != "" {
			t.Errorf("SBOM has serial number %q, timestamp %q: not reproducible", bom.SerialNumber, bom.Metadata.Timestamp)
		}
		var found bool
		for _, c := range bom.Components {
			found = found || strings.HasPrefix(c.Purl, "pkg:golang/github.com/twmb/franz-go@")
		}
		if !found {
			t.Errorf("SBOM lists no franz-go among %d components", len(bom.Components))
		}
	})

	// scripts/govulncheck.sh over the binary, under the pinned toolchain:
	// its modules (the main one among them) and its standard library, with
	// nothing that the binary reaches (that would have stopped the release).
	t.Run("VulnerabilityReport", func(t *testing.T) {
		report := string(readFile(t, filepath.Join(first, name+".govulncheck.txt")))
		for _, w := range []string{
			"Govulncheck scanned the following ",
			" modules and the go" + goVersion(t) + " standard library:",
			"\n  github.com/kafka-bench/kafka_bench_exporter@",
			"\n  github.com/twmb/franz-go@",
			// At the symbol level; other levels say "No other vulnerabilities
			// found." or list what the binary does not reach.
			"\nNo vulnerabilities found.",
		} {
			if !strings.Contains(report, w) {
				t.Errorf("%s.govulncheck.txt lacks %q:\n%s", name, w, report)
			}
		}
	})

	t.Run("Chart", func(t *testing.T) {
		chart := filepath.Join(first, "kafka-bench-exporter-"+releaseTag+".tgz")
		files := readTarGzFiles(t, chart)
		meta := parseYAMLDocs(t, "Chart.yaml", files["kafka-bench-exporter/Chart.yaml"].data)
		if len(meta) != 1 || getString(meta[0], "version") != releaseTag || getString(meta[0], "appVersion") != releaseTag {
			t.Errorf("packaged Chart.yaml: %v, want version and appVersion %s", meta, releaseTag)
		}
		// Without the `helm test` Pod, which fetches /metrics with a small
		// image of its own (helmTest.image): every other image is ours.
		out, err := exec.Command(helmCLI(t), "template", "kbe", chart, "--set", "helmTest.enabled=false").CombinedOutput()
		if err != nil {
			t.Fatalf("helm template %s: %v\n%s", chart, err, out)
		}
		images := regexp.MustCompile(`(?m)^\s*image:\s*"?([^"\s]+)"?\s*$`).FindAllStringSubmatch(string(out), -1)
		if len(images) == 0 {
			t.Fatalf("helm template renders no image:\n%s", out)
		}
		for _, m := range images {
			if m[1] != releaseImage {
				t.Errorf("helm template renders image %s, want %s", m[1], releaseImage)
			}
		}
	})

	img := readOCIImage(t, filepath.Join(first, "kafka_bench_exporter-"+releaseTag+".oci.tar"), runtime.GOARCH)
	t.Run("Image", func(t *testing.T) {
		for k, v := range map[string]string{"version": releaseTag, "revision": commit, "licenses": "Apache-2.0",
			"source": "https://github.com/kafka-bench/kafka_bench_exporter"} {
			if got := img.config.Config.Labels["org.opencontainers.image."+k]; got != v {
				t.Errorf("label org.opencontainers.image.%s = %q, want %q", k, got, v)
			}
		}
		if binary != nil && !bytes.Equal(img.files["usr/bin/kafka_bench_exporter"].data, binary) {
			t.Error("the image's binary is not the archive's")
		}
		if !regexp.MustCompile(`(?m)^nonroot:x:65532:65532:`).Match(img.files["etc/passwd"].data) {
			t.Errorf("/etc/passwd has no nonroot user 65532:\n%s", img.files["etc/passwd"].data)
		}
		compareWithDockerfile(t, img)
	})

	t.Run("ImageRuns", func(t *testing.T) {
		runImage(t, img, commit)
	})
}

// releaseRepo copies the tree's files (tracked and untracked, not ignored)
// into a new git repository with one commit at releaseCommitTime.
func releaseRepo(t *testing.T) (dir, commit string) {
	t.Helper()
	dir = t.TempDir()
	list := git(t, root(t), "ls-files", "-z", "-co", "--exclude-standard")
	for f := range strings.SplitSeq(list, "\x00") {
		src := filepath.Join(root(t), f)
		st, err := os.Lstat(src)
		if f == "" || err != nil || !st.Mode().IsRegular() {
			continue // deleted in the tree
		}
		dst := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, readFile(t, src), st.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	git(t, dir, "init", "-q")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "release test")
	return dir, strings.TrimSpace(git(t, dir, "rev-parse", "HEAD"))
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=release test", "-c", "user.email=release@test.invalid",
		"-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_DATE="+releaseCommitTime, "GIT_COMMITTER_DATE="+releaseCommitTime)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

func buildPrintVersion(t *testing.T, repo string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(repo, "scripts/build.sh"), "--print-version")
	cmd.Env = testbin.WithoutVersionEnv(os.Environ())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("scripts/build.sh --print-version: %v\n%s", err, out)
	}
	return strings.TrimSpace(string(out))
}

// runRelease runs scripts/release.sh for the host platform, without the
// compatibility smoke test (the release's own step, not the suite's).
func runRelease(t *testing.T, repo, out string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(repo, "scripts/release.sh"), releaseTag)
	cmd.Dir = repo
	cmd.Env = append(testbin.WithoutVersionEnv(os.Environ()),
		"RELEASE_DIR="+out,
		"RELEASE_TARGETS="+runtime.GOOS+"/"+runtime.GOARCH,
		"RELEASE_COMPAT=0",
	)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("scripts/release.sh %s: %v\n%s", releaseTag, err, b)
	}
	return out
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

// parseSums reads a SHA256SUMS file: "HEX  NAME" lines.
func parseSums(t *testing.T, file string) map[string]string {
	t.Helper()
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(readFile(t, file)))
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok || len(sum) != 64 {
			t.Fatalf("SHA256SUMS line %q: want HEX  NAME", sc.Text())
		}
		out[name] = sum
	}
	return out
}

func monitoringFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, g := range []string{"dashboards/*.json", "dashboards/import/*.json", "alerts/*.yml",
		"mixin/jsonnetfile.json", "mixin/*.libsonnet", "mixin/*/*.libsonnet"} {
		m, err := filepath.Glob(repoPath(t, g))
		if err != nil || len(m) == 0 {
			t.Fatalf("%s matches nothing", g)
		}
		for _, f := range m {
			rel, err := filepath.Rel(repoPath(t, "."), f)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, filepath.ToSlash(rel))
		}
	}
	return out
}

type tarFile struct {
	*tar.Header
	data []byte
}

func readTarFiles(t *testing.T, r io.Reader) map[string]tarFile {
	t.Helper()
	out := map[string]tarFile{}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out[h.Name] = tarFile{h, b}
	}
}

func readTarGzFiles(t *testing.T, file string) map[string]tarFile {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(readFile(t, file)))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return readTarFiles(t, zr)
}

type ociImage struct {
	config struct {
		Architecture, OS string
		Config           struct {
			User         string
			Entrypoint   []string
			Env          []string
			ExposedPorts map[string]struct{}
			Labels       map[string]string
		} `json:"config"`
	}
	files map[string]tarFile // the one layer
}

type ociDescriptor struct {
	MediaType   string            `json:"mediaType"`
	Digest      string            `json:"digest"`
	Annotations map[string]string `json:"annotations"`
	Platform    *struct {
		OS           string `json:"os"`
		Architecture string `json:"architecture"`
	} `json:"platform"`
}

// readOCIImage reads the OCI archive with the standard library alone, as a
// registry or runtime would: index.json, the image index, the arch's
// manifest, its config and its layer, checking every blob's digest.
func readOCIImage(t *testing.T, file, arch string) ociImage {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }() // opened for reading: nothing to lose
	files := readTarFiles(t, f)
	if !strings.Contains(string(files["oci-layout"].data), `"imageLayoutVersion"`) {
		t.Fatalf("oci-layout: %q, want an OCI image layout", files["oci-layout"].data)
	}
	blob := func(d ociDescriptor, v any) []byte {
		hexd, ok := strings.CutPrefix(d.Digest, "sha256:")
		b, found := files["blobs/sha256/"+hexd]
		if !ok || !found {
			t.Fatalf("blob %s (%s) missing", d.Digest, d.MediaType)
		}
		if sum := sha256.Sum256(b.data); hex.EncodeToString(sum[:]) != hexd {
			t.Fatalf("blob %s has digest %x", d.Digest, sum)
		}
		if v != nil {
			if err := json.Unmarshal(b.data, v); err != nil {
				t.Fatalf("blob %s: %v", d.Digest, err)
			}
		}
		return b.data
	}
	var top struct{ Manifests []ociDescriptor }
	if err := json.Unmarshal(files["index.json"].data, &top); err != nil {
		t.Fatalf("index.json: %v", err)
	}
	if len(top.Manifests) != 1 || top.Manifests[0].MediaType != "application/vnd.oci.image.index.v1+json" ||
		top.Manifests[0].Annotations["org.opencontainers.image.ref.name"] != releaseImage {
		t.Fatalf("index.json: %+v, want one image index named %s", top.Manifests, releaseImage)
	}
	var idx struct{ Manifests []ociDescriptor }
	blob(top.Manifests[0], &idx)
	var img ociImage
	for _, m := range idx.Manifests {
		if m.Platform == nil || m.Platform.OS != "linux" || m.Platform.Architecture != arch {
			continue
		}
		var man struct {
			Config ociDescriptor
			Layers []ociDescriptor
		}
		blob(m, &man)
		blob(man.Config, &img.config)
		if len(man.Layers) != 1 || man.Layers[0].MediaType != "application/vnd.oci.image.layer.v1.tar+gzip" {
			t.Fatalf("manifest layers %+v, want one gzipped OCI layer", man.Layers)
		}
		zr, err := gzip.NewReader(bytes.NewReader(blob(man.Layers[0], nil)))
		if err != nil {
			t.Fatal(err)
		}
		img.files = readTarFiles(t, zr)
		return img
	}
	t.Fatalf("the image index has no linux/%s image: %+v", arch, idx.Manifests)
	return img
}

type fsEntry struct {
	mode     int64
	uid, gid int
	dir      bool
}

func (e fsEntry) String() string {
	kind := "file"
	if e.dir {
		kind = "dir"
	}
	return fmt.Sprintf("%s %04o %d:%d", kind, e.mode, e.uid, e.gid)
}

// The paths of the Dockerfile's base image, gcr.io/distroless/static-debian12:nonroot,
// that the exporter uses: the image built from files carries the same ones.
// (Distroless has more, e.g. tzdata and dpkg status files, that it does not
// use.)
var distrolessPaths = map[string]fsEntry{
	"etc/passwd":                        {mode: 0o644},
	"etc/group":                         {mode: 0o644},
	"etc/ssl/certs/ca-certificates.crt": {mode: 0o644},
	"home/nonroot/":                     {mode: 0o700, uid: 65532, gid: 65532, dir: true},
	"tmp/":                              {mode: 0o1777, dir: true},
}

// compareWithDockerfile: the image's files are the Dockerfile's — its base's
// files above plus what its final stage COPYs, with their owners and
// modes — and its user, entrypoint, port and labels are the Dockerfile's.
func compareWithDockerfile(t *testing.T, img ociImage) {
	t.Helper()
	stages := parseDockerfile(t, string(readFile(t, repoPath(t, "Dockerfile"))))
	builder, final := stages[0], stages[len(stages)-1]
	want := map[string]fsEntry{}
	maps.Copy(want, distrolessPaths)
	for _, in := range final.all("COPY") {
		f := strings.Fields(in.args)
		var from string
		owner := [2]int{0, 0}
		for len(f) > 0 && strings.HasPrefix(f[0], "--") {
			if v, ok := strings.CutPrefix(f[0], "--from="); ok {
				from = v
			}
			if v, ok := strings.CutPrefix(f[0], "--chown="); ok {
				u, g, _ := strings.Cut(v, ":")
				owner[0], _ = strconv.Atoi(u)
				owner[1], _ = strconv.Atoi(g)
			}
			f = f[1:]
		}
		srcs, dst := f[:len(f)-1], strings.TrimPrefix(f[len(f)-1], "/")
		for _, s := range srcs {
			if from == builder.name {
				// scripts/build.sh's output: an executable.
				target := dst
				if strings.HasSuffix(dst, "/") {
					target = dst + path.Base(s)
				}
				want[target] = fsEntry{mode: 0o755, uid: owner[0], gid: owner[1]}
				continue
			}
			matches, _ := filepath.Glob(repoPath(t, s))
			for _, m := range matches {
				want[dst+filepath.Base(m)] = fsEntry{mode: 0o644, uid: owner[0], gid: owner[1]}
			}
		}
	}
	for p := range want {
		for dir := path.Dir(strings.TrimSuffix(p, "/")); dir != "."; dir = path.Dir(dir) {
			if _, ok := want[dir+"/"]; !ok {
				want[dir+"/"] = fsEntry{mode: 0o755, dir: true}
			}
		}
	}
	got := map[string]fsEntry{}
	for p, f := range img.files {
		got[p] = fsEntry{mode: f.Mode, uid: f.Uid, gid: f.Gid, dir: f.Typeflag == tar.TypeDir}
	}
	var paths []string
	for p := range want {
		paths = append(paths, p)
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	for _, p := range paths {
		w, inWant := want[p]
		g, inGot := got[p]
		switch {
		case !inGot:
			t.Errorf("/%s (%v in the Dockerfile's image) is missing from the image", p, w)
		case !inWant:
			t.Errorf("/%s (%v) is in the image, not in the Dockerfile's", p, g)
		case g != w:
			t.Errorf("/%s is %v in the image, %v in the Dockerfile's", p, g, w)
		}
	}

	cfg := img.config.Config
	if u := final.all("USER"); len(u) == 0 || u[len(u)-1].args != cfg.User {
		t.Errorf("image user %q, the Dockerfile's USER %v", cfg.User, u)
	}
	var ep []string
	if e := final.all("ENTRYPOINT"); len(e) == 1 {
		_ = json.Unmarshal([]byte(e[0].args), &ep)
	}
	if !slices.Equal(ep, cfg.Entrypoint) {
		t.Errorf("image entrypoint %q, the Dockerfile's %q", cfg.Entrypoint, ep)
	}
	for _, in := range final.all("EXPOSE") {
		for p := range strings.FieldsSeq(in.args) {
			if !strings.Contains(p, "/") {
				p += "/tcp"
			}
			if _, ok := cfg.ExposedPorts[p]; !ok {
				t.Errorf("the Dockerfile exposes %s, the image %v", p, cfg.ExposedPorts)
			}
		}
	}
	for _, in := range final.all("LABEL") {
		for _, m := range labelRE.FindAllStringSubmatch(in.args, -1) {
			k, v := m[1], strings.Trim(m[2], `"`)
			if k == "org.opencontainers.image.base.name" {
				continue // the image from files has no base
			}
			got, ok := cfg.Labels[k]
			if !ok {
				t.Errorf("the Dockerfile's label %s is not on the image", k)
			} else if !strings.Contains(v, "$") && got != v {
				t.Errorf("label %s: image %q, Dockerfile %q", k, got, v)
			}
		}
	}
}

// runImage unpacks the image's root filesystem into an OCI runtime bundle
// and runs it under runc as the image's user with a read-only root, in the
// host's network namespace, then scrapes its /metrics.
func runImage(t *testing.T, img ociImage, commit string) {
	runc := testenv.Tool(t, "runc")
	if os.Geteuid() != 0 {
		if testenv.Strict() {
			t.Fatal("runc needs root here; the suite runs as root")
		}
		t.Skip("runc needs root")
	}
	bundle := t.TempDir()
	rootfs := filepath.Join(bundle, "rootfs")
	names := make([]string, 0, len(img.files))
	for n := range img.files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		f := img.files[n]
		p := filepath.Join(rootfs, filepath.FromSlash(n))
		mode := os.FileMode(f.Mode & 0o777)
		if f.Mode&0o1000 != 0 {
			mode |= os.ModeSticky
		}
		var err error
		if f.Typeflag == tar.TypeDir {
			err = os.MkdirAll(p, 0o755)
		} else {
			err = os.WriteFile(p, f.data, 0o600)
		}
		if err == nil {
			err = os.Chown(p, f.Uid, f.Gid)
		}
		if err == nil {
			err = os.Chmod(p, mode)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command(runc, "spec", "--bundle", bundle).CombinedOutput(); err != nil {
		t.Fatalf("runc spec: %v\n%s", err, out)
	}
	port := testenv.FreePort(t)
	var spec map[string]any
	specFile := filepath.Join(bundle, "config.json")
	if err := json.Unmarshal(readFile(t, specFile), &spec); err != nil {
		t.Fatal(err)
	}
	u, g, _ := strings.Cut(img.config.Config.User, ":")
	uid, _ := strconv.Atoi(u)
	gid, _ := strconv.Atoi(g)
	proc := spec["process"].(map[string]any)
	proc["terminal"] = false
	proc["args"] = append(slices.Clone(img.config.Config.Entrypoint), fmt.Sprintf("--web.listen-address=127.0.0.1:%d", port))
	proc["env"] = img.config.Config.Env
	proc["user"] = map[string]any{"uid": uid, "gid": gid}
	proc["cwd"] = "/"
	// runc's default rlimits cannot be set in this sandbox (setrlimit: not
	// permitted); the process keeps the host's.
	delete(proc, "rlimits")
	spec["root"] = map[string]any{"path": "rootfs", "readonly": true}
	linux := spec["linux"].(map[string]any)
	var ns []any
	for _, n := range linux["namespaces"].([]any) {
		if n.(map[string]any)["type"] != "network" { // the host's loopback
			ns = append(ns, n)
		}
	}
	linux["namespaces"] = ns
	b, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(specFile, b, 0o644); err != nil {
		t.Fatal(err)
	}

	id := fmt.Sprintf("kbe-release-test-%d", os.Getpid())
	logFile, err := os.Create(filepath.Join(t.TempDir(), "runc.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(runc, "run", "--bundle", bundle, id)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = exec.Command(runc, "kill", id, "KILL").Run()
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
		}
		_ = exec.Command(runc, "delete", "-f", id).Run()
		_ = logFile.Close() // runc wrote through its own descriptor
	})
	logs := func() string { return string(readFile(t, logFile.Name())) }

	url := fmt.Sprintf("http://127.0.0.1:%d/metrics", port)
	produced := regexp.MustCompile(`(?m)^kafka_bench_produced_records_total\{[^}]*\} ([1-9][0-9.e+]*)$`)
	var body string
	deadline := time.Now().Add(3 * time.Minute)
	for {
		select {
		case err := <-exited:
			t.Fatalf("the container exited: %v\n%s", err, logs())
		default:
		}
		if resp, err := http.Get(url); err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			body = string(b)
			if resp.StatusCode == http.StatusOK && produced.MatchString(body) {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no records produced in the container's /metrics:\n%s\nlogs:\n%s", body, logs())
		}
		time.Sleep(500 * time.Millisecond)
	}
	info := regexp.MustCompile(`(?m)^kafka_bench_build_info\{([^}]*)\} 1$`).FindStringSubmatch(body)
	if info == nil || !strings.Contains(info[1], `version="`+releaseTag+`"`) || !strings.Contains(info[1], `revision="`+commit+`"`) {
		t.Errorf("kafka_bench_build_info %v, want version %s and revision %s", info, releaseTag, commit)
	}

	out, err := exec.Command(runc, "state", id).Output()
	if err != nil {
		t.Fatalf("runc state: %v", err)
	}
	var state struct{ Pid int }
	if err := json.Unmarshal(out, &state); err != nil || state.Pid == 0 {
		t.Fatalf("runc state %s: %v", out, err)
	}
	status := string(readFile(t, fmt.Sprintf("/proc/%d/status", state.Pid)))
	if !regexp.MustCompile(`(?m)^Uid:\s+65532\s+65532\s+65532\s+65532$`).MatchString(status) {
		t.Errorf("the container's process does not run as uid 65532:\n%s", status)
	}
	var rootOpts string
	for line := range strings.SplitSeq(string(readFile(t, fmt.Sprintf("/proc/%d/mountinfo", state.Pid))), "\n") {
		if f := strings.Fields(line); len(f) > 5 && f[4] == "/" {
			rootOpts = f[5]
		}
	}
	if !slices.Contains(strings.Split(rootOpts, ","), "ro") {
		t.Errorf("the container's root filesystem is mounted %q, want read-only", rootOpts)
	}
}
