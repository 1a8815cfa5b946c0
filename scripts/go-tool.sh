#!/usr/bin/env bash
# Builds a Go command from its module once into a cache directory, for the
# CLIs the tests need (scripts/helm.sh, scripts/kustomize.sh,
# scripts/golangci-lint.sh); nothing is downloaded but Go modules.
#
#   scripts/go-tool.sh DIR NAME PACKAGE@VERSION [LDFLAGS [TAGS]]
#
# DIR/NAME exists afterwards; an existing one is kept. Concurrent callers of
# one tool (the suite's background builds and a test that needs the tool
# now) wait for one build rather than each building it.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/go-env.sh" # GOTOOLCHAIN=go<go.mod's go line>, GO_TOOLS_CACHE
dir=$1 name=$2 pkg=$3 ldflags=${4:-} tags=${5:-}

[ -x "$dir/$name" ] && exit 0
root=$(dirname "$dir")
mkdir -p "$root"
exec 9>"$root/.$(basename "$dir")-$name.lock"
flock 9
[ -x "$dir/$name" ] && exit 0
tmp=$(mktemp -d "$root/$name-build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "go-tool.sh: building $name from $pkg (once)" >&2
# Outside any module, so the exporter's go.mod is not involved.
(cd "$tmp" && GOBIN="$tmp" GOFLAGS=-buildvcs=false GOWORK=off go install -tags="$tags" -ldflags="$ldflags" "$pkg")
# Renamed into place, so a reader that takes no lock never sees half a binary.
mkdir -p "$dir"
mv "$tmp/$name" "$dir/$name"
