package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"time"
)

// entry is one file of an archive or image layer. Directories end in "/".
type entry struct {
	name     string // slash-separated, relative, no leading "/"
	data     []byte
	mode     int64 // permission bits, plus fs.ModeSticky as 01000
	uid, gid int
}

// fileEntry reads src; the mode is 0755 for an executable file, else 0644,
// so that a checkout's umask does not reach the archive.
func fileEntry(name, src string) (entry, error) {
	b, err := os.ReadFile(src)
	if err != nil {
		return entry{}, err
	}
	st, err := os.Stat(src)
	if err != nil {
		return entry{}, err
	}
	mode := int64(0o644)
	if st.Mode()&0o111 != 0 {
		mode = 0o755
	}
	return entry{name: name, data: b, mode: mode}, nil
}

// withParents adds the missing parent directories (0755, root) of every
// entry and sorts by name, so the order never depends on the caller.
func withParents(es []entry) []entry {
	have := map[string]bool{}
	for _, e := range es {
		have[e.name] = true
	}
	out := append([]entry(nil), es...)
	for _, e := range es {
		for dir := path.Dir(strings.TrimSuffix(e.name, "/")); dir != "." && dir != "/"; dir = path.Dir(dir) {
			if d := dir + "/"; !have[d] {
				have[d] = true
				out = append(out, entry{name: d, mode: 0o755})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// writeTar writes es as a tar stream in name order: every mtime is mtime,
// owners are numeric only (no user or group names), PAX records none.
func writeTar(w io.Writer, es []entry, mtime time.Time) error {
	tw := tar.NewWriter(w)
	for _, e := range withParents(es) {
		h := &tar.Header{
			Name:    e.name,
			Mode:    e.mode,
			Uid:     e.uid,
			Gid:     e.gid,
			ModTime: mtime,
			Format:  tar.FormatUSTAR,
		}
		if strings.HasSuffix(e.name, "/") {
			h.Typeflag = tar.TypeDir
		} else {
			h.Typeflag = tar.TypeReg
			h.Size = int64(len(e.data))
		}
		if len(e.name) > 100 {
			// USTAR splits long names into prefix and name; beyond that PAX.
			h.Format = tar.FormatPAX
		}
		if err := tw.WriteHeader(h); err != nil {
			return fmt.Errorf("%s: %w", e.name, err)
		}
		if _, err := tw.Write(e.data); err != nil {
			return err
		}
	}
	return tw.Close()
}

// gzipBytes compresses b with a header that carries no file name and no
// time (mtime 0), so the same input gives the same bytes.
func gzipBytes(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(b); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func tarGz(es []entry, mtime time.Time) ([]byte, error) {
	var buf bytes.Buffer
	if err := writeTar(&buf, es, mtime); err != nil {
		return nil, err
	}
	return gzipBytes(buf.Bytes())
}

// zipBytes writes es as a zip in name order with one fixed modification
// time (zip stores local time without zone: UTC here).
func zipBytes(es []entry, mtime time.Time) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range withParents(es) {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate, Modified: mtime.UTC()}
		mode := fs.FileMode(e.mode) & fs.ModePerm
		if strings.HasSuffix(e.name, "/") {
			mode |= fs.ModeDir
			h.Method = zip.Store
		}
		h.SetMode(mode)
		w, err := zw.CreateHeader(h)
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(e.data); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// readTarGz lists the regular files of a .tar.gz (such as the chart that
// `helm package` writes, with its own times) for archiving again.
func readTarGz(b []byte) ([]entry, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(zr)
	var es []entry
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return es, nil
		}
		if err != nil {
			return nil, err
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return nil, err
		}
		es = append(es, entry{name: h.Name, data: data, mode: h.Mode & 0o777})
	}
}
