// Command release writes the byte-reproducible artifacts of scripts/release.sh
// that need more than `go build`: archives, the chart re-packed with fixed
// times, and the multi-platform OCI image, all from files, without a
// container engine. It is a module of its own so that go-containerregistry
// stays out of the exporter's go.mod.
//
//	release archive -o OUT.tar.gz|OUT.zip -mtime EPOCH [-prefix DIR/] NAME=SRC...
//	release retar   -o OUT.tgz -mtime EPOCH IN.tgz
//	release image   -o OUT.tar -mtime EPOCH -version V -revision R -source URL -ref REF
//	                -ca FILE -binary linux/ARCH=PATH... [-share NAME=SRC...]
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fail(fmt.Errorf("usage: release archive|retar|image ARGS (see the package comment)"))
	}
	var err error
	switch os.Args[1] {
	case "archive":
		err = archiveCmd(os.Args[2:])
	case "retar":
		err = retarCmd(os.Args[2:])
	case "image":
		err = imageCmd(os.Args[2:])
	default:
		err = fmt.Errorf("command %q: want archive, retar or image", os.Args[1])
	}
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "release:", err)
	os.Exit(1)
}

type pairs []string

func (p *pairs) String() string     { return strings.Join(*p, " ") }
func (p *pairs) Set(v string) error { *p = append(*p, v); return nil }

// split parses NAME=SRC pairs; flagName names the flag in errors.
func split(flagName string, ps []string) ([][2]string, error) {
	var out [][2]string
	for _, p := range ps {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" || v == "" {
			return nil, fmt.Errorf("%s = %q: want NAME=PATH", flagName, p)
		}
		out = append(out, [2]string{k, v})
	}
	return out, nil
}

func epoch(s string) (time.Time, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return time.Time{}, fmt.Errorf("-mtime = %q: want seconds since 1970 (SOURCE_DATE_EPOCH)", s)
	}
	return time.Unix(n, 0).UTC(), nil
}

func entries(flagName, prefix string, ps []string) ([]entry, error) {
	kv, err := split(flagName, ps)
	if err != nil {
		return nil, err
	}
	var es []entry
	for _, p := range kv {
		e, err := fileEntry(prefix+p[0], p[1])
		if err != nil {
			return nil, err
		}
		es = append(es, e)
	}
	return es, nil
}

func archiveCmd(args []string) error {
	fs := flag.NewFlagSet("archive", flag.ExitOnError)
	out := fs.String("o", "", "output .tar.gz or .zip")
	mtime := fs.String("mtime", "", "SOURCE_DATE_EPOCH")
	prefix := fs.String("prefix", "", "directory every name is below, ending in /")
	if err := fs.Parse(args); err != nil {
		return err
	}
	t, err := epoch(*mtime)
	if err != nil {
		return err
	}
	if *prefix != "" && !strings.HasSuffix(*prefix, "/") {
		return fmt.Errorf("-prefix = %q: must end in /", *prefix)
	}
	es, err := entries("file", *prefix, fs.Args())
	if err != nil {
		return err
	}
	var b []byte
	switch {
	case strings.HasSuffix(*out, ".tar.gz"), strings.HasSuffix(*out, ".tgz"):
		b, err = tarGz(es, t)
	case strings.HasSuffix(*out, ".zip"):
		b, err = zipBytes(es, t)
	default:
		return fmt.Errorf("-o = %q: want a .tar.gz, .tgz or .zip name", *out)
	}
	if err != nil {
		return err
	}
	return os.WriteFile(*out, b, 0o644)
}

func retarCmd(args []string) error {
	fs := flag.NewFlagSet("retar", flag.ExitOnError)
	out := fs.String("o", "", "output .tgz")
	mtime := fs.String("mtime", "", "SOURCE_DATE_EPOCH")
	if err := fs.Parse(args); err != nil {
		return err
	}
	t, err := epoch(*mtime)
	if err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("retar: want one input archive, got %d", fs.NArg())
	}
	in, err := os.ReadFile(fs.Arg(0))
	if err != nil {
		return err
	}
	es, err := readTarGz(in)
	if err != nil {
		return fmt.Errorf("%s: %w", fs.Arg(0), err)
	}
	b, err := tarGz(es, t)
	if err != nil {
		return err
	}
	return os.WriteFile(*out, b, 0o644)
}

func imageCmd(args []string) error {
	fs := flag.NewFlagSet("image", flag.ExitOnError)
	out := fs.String("o", "", "output OCI archive (.tar)")
	mtime := fs.String("mtime", "", "SOURCE_DATE_EPOCH")
	var s imageSpec
	fs.StringVar(&s.version, "version", "", "org.opencontainers.image.version")
	fs.StringVar(&s.revision, "revision", "", "org.opencontainers.image.revision")
	fs.StringVar(&s.source, "source", "", "org.opencontainers.image.source")
	fs.StringVar(&s.ref, "ref", "", "the image reference the archive names")
	fs.StringVar(&s.caFile, "ca", "", "PEM bundle of CA certificates")
	var bins, share pairs
	fs.Var(&bins, "binary", "linux/ARCH=PATH, repeated")
	fs.Var(&share, "share", "NAME=PATH below "+sharePath+", repeated")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var err error
	if s.created, err = epoch(*mtime); err != nil {
		return err
	}
	for name, v := range map[string]string{"-o": *out, "-version": s.version, "-revision": s.revision, "-source": s.source, "-ref": s.ref, "-ca": s.caFile} {
		if v == "" {
			return fmt.Errorf("%s is required", name)
		}
	}
	kv, err := split("-binary", bins)
	if err != nil {
		return err
	}
	if len(kv) == 0 {
		return fmt.Errorf("-binary is required (linux/ARCH=PATH)")
	}
	s.binaries = map[string]string{}
	for _, p := range kv {
		s.binaries[p[0]] = p[1]
	}
	if s.share, err = entries("-share", "", share); err != nil {
		return err
	}
	d, err := s.writeImage(*out)
	if err != nil {
		return err
	}
	fmt.Println(d)
	return nil
}
