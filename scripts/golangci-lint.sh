#!/usr/bin/env bash
# golangci-lint for the suite's lint step, built from its Go module (nothing is
# downloaded but Go modules) once per version. This is the single place where
# the golangci-lint version is pinned; the rules are in .golangci.yml.
#
#   scripts/golangci-lint.sh path       ensure it is built, print its path
#   scripts/golangci-lint.sh ARGS...    run it
#
# Cache: ${KAFKA_BENCH_CACHE:-$HOME/.cache/kafka_bench_exporter}/$GOTOOLCHAIN/golangci-lint-$GOLANGCI_LINT_VERSION/golangci-lint
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/go-env.sh" # GOTOOLCHAIN=go<go.mod's go line>, GO_TOOLS_CACHE

GOLANGCI_LINT_VERSION=v2.15.0

CACHE_ROOT="$GO_TOOLS_CACHE"
LINT_DIR="$CACHE_ROOT/golangci-lint-$GOLANGCI_LINT_VERSION"
LINT="$LINT_DIR/golangci-lint"

if [ ! -x "$LINT" ]; then
	# Stamped in as its release build does, so `version` names the release.
	ldflags="-X main.version=${GOLANGCI_LINT_VERSION#v}"
	"$(dirname "$0")/go-tool.sh" "$LINT_DIR" golangci-lint \
		"github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$GOLANGCI_LINT_VERSION" "$ldflags"
fi

if [ "${1:-}" = path ]; then
	echo "$LINT"
	exit 0
fi
exec "$LINT" "$@"
