#!/usr/bin/env bash
# Achieved rate against target on the embedded cluster, and the exporter's CPU
# and RSS meanwhile (the embedded brokers run in the same process, so they are
# included), from two scrapes of /metrics; p99 is the bound of the classic
# bucket that holds it. The measuring is Go's:
# tools/bench-compare embedded, which this runs.
# Usage: scripts/bench-embedded.sh [seconds] [rate ...]   (default: 60 s at 1000 and 10000 records/s)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/go-env.sh" # GOTOOLCHAIN=go<go.mod's go line>, GO_TOOLS_CACHE
cd "$(dirname "$0")/.."
exec go run ./tools/bench-compare embedded "$@"
