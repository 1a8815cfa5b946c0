#!/usr/bin/env bash
# The build command: a static, reproducible kafka_bench_exporter binary with
# its version stamped in. The README and the Dockerfile both call it.
#
#   scripts/build.sh [OUTPUT]        default OUTPUT: ./kafka_bench_exporter
#
# The version fields (github.com/prometheus/common/version) come from git, or
# from the environment where there is no git checkout (the Docker build):
#   VERSION     git describe --tags --always --dirty
#   REVISION    git rev-parse HEAD
#   BRANCH      git rev-parse --abbrev-ref HEAD
#   BUILD_USER  $USER@$(hostname)
#   BUILD_DATE  now, or SOURCE_DATE_EPOCH when set (format 20060102-15:04:05, UTC)
# GOOS and GOARCH cross-compile as usual. Extra `go build` flags: GOFLAGS.
set -euo pipefail

out=${1:-kafka_bench_exporter}
case "$out" in
/*) ;;
*) out="$PWD/$out" ;;
esac
cd "$(dirname "$0")/.."

git_or() { # fallback git-args...
	local fallback=$1
	shift
	git "$@" 2>/dev/null || echo "$fallback"
}

version=${VERSION:-$(git_or unknown describe --tags --always --dirty)}
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
