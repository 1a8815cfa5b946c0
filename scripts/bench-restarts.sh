#!/usr/bin/env bash
# The figures of "Through a rolling restart" in docs/benchmarks.md: the
# real-broker tests that print them (-v), on three combined KRaft nodes.
#
#   scripts/bench-restarts.sh           # both: a static setting through rolling restarts, the rolling upgrade
#   scripts/bench-restarts.sh static    # TestRollingRestarts/StaticConfigExperiment: per-restart "broker back" times
#   scripts/bench-restarts.sh upgrade   # TestRollingRestarts/Upgrade: 4.1.1 -> 4.4.0 under a 1,000 records/s probe
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/go-env.sh" # GOTOOLCHAIN=go<go.mod's go line>, GO_TOOLS_CACHE
cd "$(dirname "$0")/.."
run=()
case "${1:-both}" in
static) run=('TestRollingRestarts/StaticConfigExperiment$') ;;
upgrade) run=('TestRollingRestarts/Upgrade$') ;;
both) run=('TestRollingRestarts$') ;; # the two side by side, as in the suite
*)
	echo "bench-restarts: unknown part \"$1\" (want static, upgrade or both)" >&2
	exit 2
	;;
esac
scripts/kafka.sh lib
KAFKA_VERSION=4.1.1 scripts/kafka.sh lib # the upgrade's starting release
KAFKA_BENCH_INTEGRATION=1 exec go test -count=1 -v -timeout 30m -run "${run[0]}" ./integration
