#!/usr/bin/env bash
# One bench process against a sweep of two worker processes at the same total
# rate, on one real single-broker Kafka (internal/kafkatest, jars pinned by
# scripts/kafka.sh), rounds alternating which goes first. The two-worker
# side is merged with `bench merge` from the results topic; both sides write
# the seeds-shaped tables, collected in report.md. The measuring is Go's:
# tools/bench-compare workers, which this runs.
#
# Usage: scripts/bench-workers.sh
# Settings (environment, or the command's flags: -rounds, -rate, ...): ROUNDS=2 RATE=20000 SECS=20 SIZE=100
#   PARTITIONS=6 ACKS=1 OUT=<dir for logs and report.md>
# Needs go, java 17+ and mvn (scripts/kafka.sh fetches the Kafka jars once).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/go-env.sh" # GOTOOLCHAIN=go<go.mod's go line>, GO_TOOLS_CACHE
cd "$(dirname "$0")/.."
for tool in go java mvn; do
  command -v "$tool" >/dev/null 2>&1 ||
    { echo "bench-workers: $tool not found (apt-get install golang openjdk-17-jdk-headless maven)" >&2; exit 1; }
done
exec go run ./tools/bench-compare workers "$@"
