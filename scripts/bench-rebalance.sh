#!/usr/bin/env bash
# The bench experiment scripts/bench-rebalance.yml (classic cooperative-sticky
# against the consumer protocol under churn) on three real Kafka brokers
# (internal/kafkatest/cmd/kafka-cluster, jars pinned by scripts/kafka.sh),
# with the exporter's own bench: its tables and verdicts go to stdout, the
# rounds JSON to $OUT/results.json.
#
# Usage: scripts/bench-rebalance.sh   Settings: SEED=3 OUT=<dir>
# Needs go, java 17+ and mvn.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/go-env.sh" # GOTOOLCHAIN=go<go.mod's go line>, GO_TOOLS_CACHE
cd "$(dirname "$0")/.."
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
scripts/build.sh "$out/kafka_bench_exporter"
go build -o "$out/kafka-cluster" ./internal/kafkatest/cmd/kafka-cluster
coproc cluster { exec "$out/kafka-cluster" -nodes 3 2>"$out/cluster.log"; }
trap 'kill "$cluster_PID" 2>/dev/null || true; wait' EXIT
bootstrap=
while read -r line <&"${cluster[0]}"; do
  case $line in BOOTSTRAP=*) bootstrap=${line#BOOTSTRAP=}; break ;; esac
done
[ -n "$bootstrap" ] || { cat "$out/cluster.log" >&2; exit 1; }
"$out/kafka_bench_exporter" bench --bench.file=scripts/bench-rebalance.yml --kafka.brokers="$bootstrap" \
  --seed="${SEED:-3}" --output="$out/results.json" --format=json
