#!/usr/bin/env bash
# The long soak: integration.TestSoak for 10 minutes (10,000 records/s of
# 1 KiB against a real 1-node broker): goroutines, live heap and RSS not growing,
# nothing lost, achieved/target >= 0.999. The suite (scripts/test.sh) runs the
# same test for 2 minutes. Usage: scripts/soak.sh [duration, default 10m]
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/go-env.sh" # GOTOOLCHAIN=go<go.mod's go line>, GO_TOOLS_CACHE
cd "$(dirname "$0")/.."
scripts/kafka.sh lib >/dev/null
KAFKA_BENCH_SOAK=${1:-10m} KAFKA_BENCH_INTEGRATION=1 \
	go test -count=1 -run '^TestSoak$' -timeout 60m -v ./integration/ | grep -E '^(=== RUN|--- |PASS|FAIL|ok)|soak_test.go'
