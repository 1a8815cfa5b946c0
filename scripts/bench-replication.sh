#!/usr/bin/env bash
# Replication latency across a real MirrorMaker 2: two one-node Kafka clusters
# (A, B) from internal/kafkatest, MirrorMaker 2 in dedicated mode copying the
# probe topic A -> B as A.<topic>, and the exporter with a probe whose replica
# block reads the copy on B. For each rate it prints one row: the replication
# latency percentiles (intended send time on A -> read on B, as
# histogram_quantile computes them) and, for comparison, the source's own
# end-to-end p99, over a window of steady state. The measuring is Go's:
# tools/bench-compare replication, which this runs.
# Usage: scripts/bench-replication.sh [seconds] [rate ...]   (default: 60 s at 200 records/s)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/go-env.sh" # GOTOOLCHAIN=go<go.mod's go line>, GO_TOOLS_CACHE
cd "$(dirname "$0")/.."
exec go run ./tools/bench-compare replication "$@"
