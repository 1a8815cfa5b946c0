#!/usr/bin/env bash
# The consumer-group lag collector (groups:) beside kminion's (scrapeMode
# adminApi) and kafka_exporter's, on one real single-broker Kafka
# (internal/kafkatest, jars pinned by scripts/kafka.sh) holding 500 topics of
# 4 partitions, each group with committed offsets at a known lag on 2 topics.
# Per group count and round, each program in turn (order rotated per round)
# is started, waited for until it exports every group-partition's lag, then
# measured over POLLS polls INTERVAL seconds apart: CPU, requests sent (a
# proxy the broker advertises counts them) and wall time per poll, RSS, and
# its lag in records against the committed one for every group-partition.
# The measuring is Go's: tools/bench-compare groups, which
# this runs. The peers are not built here: give their binaries.
#
# Usage: KBE_BIN=... KMINION_BIN=... KAFKA_EXPORTER_BIN=... scripts/bench-groups.sh
# Settings (environment, or the command's flags: -group-counts, -rounds, ...):
#   GROUP_COUNTS="100 500" ROUNDS=3 INTERVAL=10 POLLS=6 TOPICS=500 PARTITIONS=4
#   TOPICS_PER_GROUP=2 TOOLS="ours kminion kafka_exporter" OUT=<dir for logs>
#   REPORT=<file for the Markdown tables>
#   KAFKA_BENCH_BROKERS  use this broker instead of starting one (requests are then not counted)
# Needs go, java 17+ and mvn (scripts/kafka.sh fetches the Kafka jars once).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/go-env.sh" # GOTOOLCHAIN=go<go.mod's go line>, GO_TOOLS_CACHE
cd "$(dirname "$0")/.."
for tool in go java mvn; do
  command -v "$tool" >/dev/null 2>&1 ||
    { echo "bench-groups: $tool not found (apt-get install golang openjdk-17-jdk-headless maven)" >&2; exit 1; }
done
exec go run ./tools/bench-compare groups "$@"
