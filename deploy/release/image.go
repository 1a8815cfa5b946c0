package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The image's filesystem is that of the Dockerfile: what its base
// gcr.io/distroless/static-debian12:nonroot holds that the exporter uses
// (users, CA certificates, /tmp, the nonroot home) plus what it COPYs.
const (
	binaryPath = "usr/bin/kafka_bench_exporter"
	sharePath  = "usr/share/kafka_bench_exporter/"
	caPath     = "etc/ssl/certs/ca-certificates.crt"
	nonroot    = 65532
)

// The user database of distroless' static nonroot image.
const passwd = `root:x:0:0:root:/root:/sbin/nologin
nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin
nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin
`

const group = `root:x:0:
nobody:x:65534:
tty:x:5:
staff:x:50:
nonroot:x:65532:
`

type imageSpec struct {
	version, revision, source, ref string
	created                        time.Time
	caFile                         string
	binaries                       map[string]string // "linux/amd64" -> path
	share                          []entry           // below sharePath
}

// rootfs is the image's one layer for one binary.
func (s imageSpec) rootfs(binary string) ([]entry, error) {
	bin, err := fileEntry(binaryPath, binary)
	if err != nil {
		return nil, err
	}
	bin.mode = 0o755
	ca, err := fileEntry(caPath, s.caFile)
	if err != nil {
		return nil, fmt.Errorf("CA certificates: %w", err)
	}
	ca.mode = 0o644
	es := []entry{
		bin, ca,
		{name: "etc/passwd", data: []byte(passwd), mode: 0o644},
		{name: "etc/group", data: []byte(group), mode: 0o644},
		{name: "home/nonroot/", mode: 0o700, uid: nonroot, gid: nonroot},
		{name: "tmp/", mode: 0o1777},
	}
	for _, e := range s.share {
		e.name = sharePath + e.name
		e.mode = 0o644
		es = append(es, e)
	}
	return es, nil
}

func (s imageSpec) labels() map[string]string {
	return map[string]string{
		"org.opencontainers.image.title":         "kafka_bench_exporter",
		"org.opencontainers.image.description":   "Continuous Apache Kafka producer/consumer benchmark probes, exported for Prometheus",
		"org.opencontainers.image.source":        s.source,
		"org.opencontainers.image.url":           s.source,
		"org.opencontainers.image.documentation": s.source + "/blob/main/README.md",
		"org.opencontainers.image.version":       s.version,
		"org.opencontainers.image.revision":      s.revision,
		"org.opencontainers.image.created":       s.created.UTC().Format(time.RFC3339),
		"org.opencontainers.image.licenses":      "Apache-2.0",
	}
}

func (s imageSpec) image(platform, binary string) (v1.Image, *v1.Platform, error) {
	osName, arch, ok := strings.Cut(platform, "/")
	if !ok || osName != "linux" {
		return nil, nil, fmt.Errorf("image platform %q: want linux/ARCH", platform)
	}
	p := &v1.Platform{OS: osName, Architecture: arch}
	if arch == "arm64" {
		p.Variant = "v8"
	}
	es, err := s.rootfs(binary)
	if err != nil {
		return nil, nil, err
	}
	gz, err := tarGz(es, s.created)
	if err != nil {
		return nil, nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(gz)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.Append(img, mutate.Addendum{
		Layer:     layer,
		MediaType: types.OCILayer,
		History: v1.History{
			Created:   v1.Time{Time: s.created},
			CreatedBy: "scripts/release.sh " + s.version,
			Comment:   "kafka_bench_exporter, CA certificates, nonroot user, dashboards and alert rules",
		},
	})
	if err != nil {
		return nil, nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Variant = p.OS, p.Architecture, p.Variant
	cf.Created = v1.Time{Time: s.created}
	cf.Author = ""
	cf.Config = v1.Config{
		User:         fmt.Sprintf("%d:%d", nonroot, nonroot),
		Entrypoint:   []string{"/" + binaryPath},
		WorkingDir:   "/home/nonroot",
		ExposedPorts: map[string]struct{}{"10092/tcp": {}},
		Env: []string{
			"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
			"SSL_CERT_FILE=/" + caPath,
		},
		Labels: s.labels(),
	}
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		return nil, nil, err
	}
	return img, p, nil
}

// index is the multi-platform image index, platforms in name order.
func (s imageSpec) index() (v1.ImageIndex, error) {
	var platforms []string
	for p := range s.binaries {
		platforms = append(platforms, p)
	}
	sort.Strings(platforms)
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, p := range platforms {
		img, plat, err := s.image(p, s.binaries[p])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{
			Add:      img,
			Platform: plat,
		})
	}
	return mutate.Annotations(idx, s.labels()).(v1.ImageIndex), nil
}

// writeImage writes the index as an OCI image layout and tars that layout
// (the "oci-archive" that `podman load` and `docker load` read) into out.
// It returns the index digest.
func (s imageSpec) writeImage(out string) (_ v1.Hash, err error) {
	idx, err := s.index()
	if err != nil {
		return v1.Hash{}, err
	}
	dir, err := os.MkdirTemp(filepath.Dir(out), ".oci-layout-")
	if err != nil {
		return v1.Hash{}, err
	}
	defer func() { err = errors.Join(err, os.RemoveAll(dir)) }()
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return v1.Hash{}, err
	}
	if err := p.AppendIndex(idx, layout.WithAnnotations(map[string]string{
		// containerd (docker load) names the image by the first, podman by
		// the second.
		"io.containerd.image.name":          s.ref,
		"org.opencontainers.image.ref.name": s.ref,
	})); err != nil {
		return v1.Hash{}, err
	}
	var es []entry
	err = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		e, err := fileEntry(filepath.ToSlash(rel), p)
		e.mode = 0o644
		es = append(es, e)
		return err
	})
	if err != nil {
		return v1.Hash{}, err
	}
	f, err := os.Create(out)
	if err != nil {
		return v1.Hash{}, err
	}
	if err := writeTar(f, es, s.created); err != nil {
		return v1.Hash{}, errors.Join(err, f.Close())
	}
	if err := f.Close(); err != nil {
		return v1.Hash{}, err
	}
	return idx.Digest()
}
