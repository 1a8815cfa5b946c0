#!/usr/bin/env bash
# The Helm CLI for the chart's tests, built from its Go module (nothing is
# downloaded but Go modules) once per version. This is the single place where
# the Helm version is pinned.
#
#   scripts/helm.sh path       ensure it is built, print its path
#   scripts/helm.sh ARGS...    run it
#
# Cache: ${KAFKA_BENCH_CACHE:-$HOME/.cache/kafka_bench_exporter}/$GOTOOLCHAIN/helm-$HELM_VERSION-k8s1.$K8S_MINOR/helm
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/go-env.sh" # GOTOOLCHAIN=go<go.mod's go line>, GO_TOOLS_CACHE

HELM_VERSION=v3.22.0
# The Kubernetes version of its k8s.io modules (v0.37), which `helm template`
# and `helm lint` assume, stamped in as Helm's Makefile does; without it Helm
# assumes 1.20.
K8S_MINOR=37

CACHE_ROOT="$GO_TOOLS_CACHE"
HELM_DIR="$CACHE_ROOT/helm-$HELM_VERSION-k8s1.$K8S_MINOR"
HELM="$HELM_DIR/helm"

if [ ! -x "$HELM" ]; then
	ldflags="-X helm.sh/helm/v3/internal/version.version=$HELM_VERSION"
	for pkg in pkg/lint/rules pkg/chartutil; do
		ldflags+=" -X helm.sh/helm/v3/$pkg.k8sVersionMajor=1 -X helm.sh/helm/v3/$pkg.k8sVersionMinor=$K8S_MINOR"
	done
	"$(dirname "$0")/go-tool.sh" "$HELM_DIR" helm "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" "$ldflags"
fi

if [ "${1:-}" = path ]; then
	echo "$HELM"
	exit 0
fi
exec "$HELM" "$@"
