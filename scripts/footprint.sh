#!/usr/bin/env bash
# The exporter's always-on cost: CPU and RSS of the daemon probing a real broker
# at a fixed record rate. Per row it starts the exporter (one probe with default
# settings: acks=all, 3 partitions, consumer on; its own topic and group), waits
# until it is ready plus WARMUP seconds, then scrapes /metrics every 15 s for
# SECONDS_PER_ROW seconds and reads the process's CPU (utime+stime) and RSS over
# that window. The measuring is Go's: tools/bench-compare
# footprint, which this runs.
#
#   scripts/footprint.sh                         rows 30:128 300:128 1000:1024 (rate:record_size)
#   scripts/footprint.sh 1000:1024 10000:1024    other rows
#
# Environment (or the command's flags: -seconds-per-row, -warmup, ...):
#   SECONDS_PER_ROW (120), WARMUP (20), ROUNDS (1)
#   KAFKA_BENCH_BROKERS  use this broker instead of starting a 1-node one
#   KBE_BIN              measure this binary instead of building the worktree's
#   EXTRA_FLAGS          more exporter flags, word-split
#   PROBE_EXTRA          more probe keys, YAML flow style: 'producer: {linger.ms: 20}'
#   PEER_CMD, PEER_URL, PEER_RECORDS
#                        also measure another program side by side, rounds
#                        alternated: PEER_CMD is run by bash with RATE, SIZE, BROKERS
#                        and ROUND set; PEER_URL is its metrics URL; PEER_RECORDS
#                        the counter (summed over series) of the records it produced.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/go-env.sh" # GOTOOLCHAIN=go<go.mod's go line>, GO_TOOLS_CACHE
cd "$(dirname "$0")/.."
exec go run ./tools/bench-compare footprint "$@"
