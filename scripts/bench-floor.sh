#!/usr/bin/env bash
# The load generator's CPU per record against the client library's floor:
# `kafka_bench_exporter bench` against a minimal franz-go producer and
# consumer (tools/kgo-floor), rounds alternated, on one real
# Kafka broker. The measuring and the statistics are Go's:
# tools/bench-floor, whose flags this passes on, e.g.
#
#   scripts/bench-floor.sh                                    # produce and consume, 50,000 records/s x 1 KiB, acks=1
#   scripts/bench-floor.sh -sides produce -acks all -rounds 5
#   scripts/bench-floor.sh -sides daemon -vs /tmp/old/kafka_bench_exporter -rate 30 -size 128
#   scripts/bench-floor.sh -cpuprofile /tmp/floor.prof        # and profiles of the warm-up runs
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/go-env.sh" # GOTOOLCHAIN=go<go.mod's go line>, GO_TOOLS_CACHE
cd "$(dirname "$0")/.."
exec go run ./tools/bench-floor "$@"
