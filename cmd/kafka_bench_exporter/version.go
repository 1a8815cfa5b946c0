package main

import (
	"runtime/debug"

	"github.com/prometheus/common/version"
)

// stampVersion fills the version fields that scripts/build.sh sets with
// -ldflags from the Go build info instead, when they are empty: `go run`
// and `go install` then report the module version ("(devel)" in a
// checkout), and, with VCS stamping, the commit and its time.
func stampVersion() {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return
	}
	v, date := fromBuildInfo(bi)
	if version.Version == "" {
		version.Version = v
	}
	if version.BuildDate == "" {
		version.BuildDate = date
	}
	// The revision needs nothing: version.GetRevision falls back to
	// vcs.revision by itself.
}

// fromBuildInfo is the module version and the commit time of bi.
func fromBuildInfo(bi *debug.BuildInfo) (v, date string) {
	v = bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.time" {
			date = s.Value
		}
	}
	return v, date
}
