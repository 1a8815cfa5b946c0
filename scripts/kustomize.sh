#!/usr/bin/env bash
# The kustomize CLI for the manifests' tests, built from its Go module
# (nothing is downloaded but Go modules) once per version; the version that
# kubectl 1.32+ embeds (`kubectl kustomize`). The single place where it is
# pinned.
#
#   scripts/kustomize.sh path       ensure it is built, print its path
#   scripts/kustomize.sh ARGS...    run it (build DIR, ...)
#
# Cache: ${KAFKA_BENCH_CACHE:-$HOME/.cache/kafka_bench_exporter}/$GOTOOLCHAIN/kustomize-$KUSTOMIZE_VERSION/kustomize
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/go-env.sh" # GOTOOLCHAIN=go<go.mod's go line>, GO_TOOLS_CACHE

KUSTOMIZE_VERSION=v5.5.0

CACHE_ROOT="$GO_TOOLS_CACHE"
KUSTOMIZE_DIR="$CACHE_ROOT/kustomize-$KUSTOMIZE_VERSION"
KUSTOMIZE="$KUSTOMIZE_DIR/kustomize"

"$(dirname "$0")/go-tool.sh" "$KUSTOMIZE_DIR" kustomize "sigs.k8s.io/kustomize/kustomize/v5@$KUSTOMIZE_VERSION" \
	"-X sigs.k8s.io/kustomize/api/provenance.version=kustomize/$KUSTOMIZE_VERSION"

if [ "${1:-}" = path ]; then
	echo "$KUSTOMIZE"
	exit 0
fi
exec "$KUSTOMIZE" "$@"
