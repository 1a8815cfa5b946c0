#!/usr/bin/env bash
# Prometheus 3 and its promtool for the monitoring tests, built from their Go
# module (nothing is downloaded but Go modules) once per version. This is the
# single place where the Prometheus version is pinned. The tests use the HTTP
# API only, so the web UI's assets (build tag builtinassets) are left out, and
# static targets only, so every service discovery but file and HTTP (build
# tag remove_all_sd: no Kubernetes, AWS, Azure, GCE... SDKs to download and
# compile, most of a fresh build).
#
#   scripts/prometheus.sh path            ensure both are built, print prometheus's path
#   scripts/prometheus.sh promtool-path   ensure both are built, print promtool's path
#   scripts/prometheus.sh ARGS...         run prometheus
#
# Cache: ${KAFKA_BENCH_CACHE:-$HOME/.cache/kafka_bench_exporter}/$GOTOOLCHAIN/prometheus-$PROM_VERSION/{prometheus,promtool}
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/go-env.sh" # GOTOOLCHAIN=go<go.mod's go line>, GO_TOOLS_CACHE

# The Go module's v0.3XX.Y is Prometheus v3.XX.Y.
PROM_MODULE_VERSION=v0.316.0
PROM_VERSION=3.16.0

CACHE_ROOT="$GO_TOOLS_CACHE"
PROM_DIR="$CACHE_ROOT/prometheus-v$PROM_VERSION"

# Stamped as Prometheus's own release build does, so /api/v1/status/buildinfo
# and --version name the version.
ldflags="-X github.com/prometheus/common/version.Version=$PROM_VERSION -X github.com/prometheus/common/version.Branch=HEAD"
# promtool right after prometheus: it reuses the packages just compiled.
for cmd in prometheus promtool; do
	"$(dirname "$0")/go-tool.sh" "$PROM_DIR" "$cmd" "github.com/prometheus/prometheus/cmd/$cmd@$PROM_MODULE_VERSION" "$ldflags" remove_all_sd
done

case "${1:-}" in
path)
	echo "$PROM_DIR/prometheus"
	exit 0
	;;
promtool-path)
	echo "$PROM_DIR/promtool"
	exit 0
	;;
esac
exec "$PROM_DIR/prometheus" "$@"
