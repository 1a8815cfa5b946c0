#!/usr/bin/env bash
# The build command: a static, reproducible kafka_bench_exporter binary with
# its version stamped in. The README and the Dockerfile both call it.
#
#   scripts/build.sh [OUTPUT]        default OUTPUT: ./kafka_bench_exporter
#   scripts/build.sh --print-version print the version it would stamp, build nothing
#
# The version fields (github.com/prometheus/common/version) come from git, or
# from the environment where there is no git checkout (the Docker build):
#   VERSION     the tag vX.Y.Z on HEAD, else a Go pseudo-version as `go build`
#               derives it (v0.0.0-20260102030405-0123456789ab, or
#               vX.Y.(Z+1)-0.20260102030405-0123456789ab after tag vX.Y.Z),
#               with "+dirty" when the tree has changes
#   REVISION    git rev-parse HEAD
#   BRANCH      git rev-parse --abbrev-ref HEAD
#   BUILD_USER  $USER@$(hostname)
#   BUILD_DATE  now, or SOURCE_DATE_EPOCH when set (format 20060102-15:04:05, UTC)
# GOOS and GOARCH cross-compile as usual. Extra `go build` flags: GOFLAGS.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/go-env.sh" # GOTOOLCHAIN=go<go.mod's go line>, GO_TOOLS_CACHE

out=${1:-kafka_bench_exporter}
case "$out" in
/* | --print-version) ;;
*) out="$PWD/$out" ;;
esac
cd "$(dirname "$0")/.."

git_or() { # fallback git-args...
	local fallback=$1
	shift
	git "$@" 2>/dev/null || echo "$fallback"
}

# git_version is the semantic version of HEAD, the one `go build` with VCS
# stamping and `go install ...@version` report: never empty in a checkout.
git_version() {
	git rev-parse --verify -q HEAD >/dev/null || return 1
	local v tag ts hash
	if tag=$(git describe --tags --exact-match --match 'v[0-9]*' HEAD 2>/dev/null); then
		v=$tag
	else
		ts=$(TZ=UTC git log -1 --format=%cd --date=format-local:%Y%m%d%H%M%S HEAD)
		hash=$(git rev-parse --short=12 HEAD)
		tag=$(git describe --tags --abbrev=0 --match 'v[0-9]*' HEAD 2>/dev/null || true)
		if [[ $tag =~ ^v([0-9]+)\.([0-9]+)\.([0-9]+)$ ]]; then
			v="v${BASH_REMATCH[1]}.${BASH_REMATCH[2]}.$((BASH_REMATCH[3] + 1))-0.$ts-$hash"
		elif [[ $tag =~ ^v[0-9]+\.[0-9]+\.[0-9]+-[0-9A-Za-z.-]+$ ]]; then
			v="$tag.0.$ts-$hash"
		else
			v="v0.0.0-$ts-$hash"
		fi
	fi
	if [ -n "$(git status --porcelain 2>/dev/null)" ]; then
		v+="+dirty"
	fi
	echo "$v"
}

version=${VERSION:-$(git_version 2>/dev/null || echo unknown)}
if [ "$out" = --print-version ]; then
	echo "$version"
	exit 0
fi
revision=${REVISION:-$(git_or unknown rev-parse HEAD)}
branch=${BRANCH:-$(git_or unknown rev-parse --abbrev-ref HEAD)}
build_user=${BUILD_USER:-${USER:-$(id -un 2>/dev/null || echo unknown)}@$(hostname 2>/dev/null || echo unknown)}
if [ -z "${BUILD_DATE:-}" ]; then
	if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then
		BUILD_DATE=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y%m%d-%H:%M:%S)
	else
		BUILD_DATE=$(date -u +%Y%m%d-%H:%M:%S)
	fi
fi

pkg=github.com/prometheus/common/version
ldflags="-s -w
	-X '$pkg.Version=$version'
	-X '$pkg.Revision=$revision'
	-X '$pkg.Branch=$branch'
	-X '$pkg.BuildUser=$build_user'
	-X '$pkg.BuildDate=$BUILD_DATE'"

CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$out" ./cmd/kafka_bench_exporter
echo "built $out ($version, $revision)" >&2
