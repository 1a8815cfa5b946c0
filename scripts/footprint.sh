#!/usr/bin/env bash
# The exporter's always-on cost: CPU and RSS of the daemon probing a real broker
# at a fixed record rate. Per row it starts the exporter (one probe with default
# settings: acks=all, 3 partitions, consumer on; its own topic and group), waits until it is ready plus WARMUP seconds, then scrapes /metrics every
# 15 s for SECONDS seconds and reads the process's CPU (utime+stime of
# /proc/PID/stat) and RSS (/proc/PID/status) over that window.
#
#   scripts/footprint.sh                         rows 30:128 300:128 1000:1024 (rate:record_size)
#   scripts/footprint.sh 1000:1024 10000:1024    other rows
#
# Environment:
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
secs=${SECONDS_PER_ROW:-120}
warmup=${WARMUP:-20}
rounds=${ROUNDS:-1}
rows=("$@")
[ $# -gt 0 ] || rows=(30:128 300:128 1000:1024)
work=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

bin=${KBE_BIN:-}
if [ -z "$bin" ]; then
	bin=$work/kafka_bench_exporter
	go build -o "$bin" ./cmd/kafka_bench_exporter
fi
brokers=${KAFKA_BENCH_BROKERS:-}
if [ -z "$brokers" ]; then
	go build -o "$work/kafka-cluster" ./internal/kafkatest/cmd/kafka-cluster
	"$work/kafka-cluster" -nodes 1 -start-timeout 6m >"$work/cluster.out" 2>"$work/cluster.err" &
	pids+=($!)
	until grep -q '^BOOTSTRAP=' "$work/cluster.out"; do
		kill -0 "${pids[0]}" 2>/dev/null || { cat "$work/cluster.err" >&2; exit 1; }
		sleep 1
	done
	brokers=$(sed -n 's/^BOOTSTRAP=//p' "$work/cluster.out")
fi
tck=$(getconf CLK_TCK)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
rss_kib() { awk '$1 == "VmRSS:" {print $2}' "/proc/$1/status"; }
counter() { # url metric: the sum of the metric's series
	curl -sf "$1" | awk -v n="$2" '$1 ~ "^"n"({|$)" {s+=$2} END {printf "%.0f", s}'
}

# measure NAME PID URL METRIC RATE SIZE: prints one table row.
measure() {
	local name=$1 pid=$2 url=$3 metric=$4 rate=$5 size=$6
	sleep "$warmup"
	local c0 r0 t0 c1 r1 t1 rss maxrss=0
	c0=$(cpu_ticks "$pid"); r0=$(counter "$url" "$metric"); t0=$(date +%s.%N)
	for ((s = 15; s <= secs; s += 15)); do
		sleep 15
		curl -sf "$url" >/dev/null
		rss=$(rss_kib "$pid")
		((rss > maxrss)) && maxrss=$rss
	done
	c1=$(cpu_ticks "$pid"); r1=$(counter "$url" "$metric"); t1=$(date +%s.%N)
	rss=$(rss_kib "$pid")
	python3 - "$name" "$rate" "$size" "$t0" "$t1" "$c0" "$c1" "$r0" "$r1" "$tck" "$rss" "$maxrss" <<'EOF'
import sys
name, rate, size = sys.argv[1:4]
t0, t1, c0, c1, r0, r1, tck, rss, maxrss = map(float, sys.argv[4:13])
el, cpu, recs = t1 - t0, (c1 - c0) / tck, r1 - r0
per = cpu / recs * 1e6 if recs > 0 else float("nan")
print(f"| {name} | {rate} | {size} | {el:.0f} | {recs / el:.1f} | {100 * cpu / el:.2f} % | {per:.0f} | {rss / 1024:.1f} | {maxrss / 1024:.1f} |", flush=True)
EOF
}

run_ours() { # rate size round
	# A fresh topic and group per run, every other setting at its default.
	local topic=footprint-$1-$2-$3-$RANDOM
	printf 'kafka: {brokers: [%s]}\nprobes: [{name: footprint, topic: %s, rate: %s, record_size: %s, consumer: {group.id: %s}%s}]\n' \
		"$brokers" "$topic" "$1" "$2" "$topic" "${PROBE_EXTRA:+, $PROBE_EXTRA}" >"$work/probe.yml"
	# shellcheck disable=SC2086
	"$bin" --config.file="$work/probe.yml" --web.listen-address=127.0.0.1:$port --log.level=warn \
		${EXTRA_FLAGS:-} >"$work/ours.log" 2>&1 &
	local pid=$!
	pids+=($pid)
	until curl -sf "127.0.0.1:$port/-/ready" >/dev/null; do
		kill -0 $pid 2>/dev/null || { cat "$work/ours.log" >&2; exit 1; }
		sleep 0.5
	done
	measure ours $pid "127.0.0.1:$port/metrics" kafka_bench_produced_records_total "$1" "$2"
	kill -TERM $pid
	wait $pid || true
}

run_peer() { # rate size round
	RATE=$1 SIZE=$2 BROKERS=$brokers ROUND=$3 bash -c "$PEER_CMD" >"$work/peer.log" 2>&1 &
	local pid=$!
	pids+=($pid)
	until curl -sf "$PEER_URL" | grep -q "^$PEER_RECORDS"; do
		kill -0 $pid 2>/dev/null || { cat "$work/peer.log" >&2; exit 1; }
		sleep 0.5
	done
	measure peer $pid "$PEER_URL" "$PEER_RECORDS" "$1" "$2"
	kill -TERM $pid
	wait $pid || true
}

echo "| program | rate (rec/s) | record size (B) | seconds | produced rec/s | CPU (% of a core) | µs CPU per record | RSS MiB (end) | peak RSS MiB |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for ((round = 1; round <= rounds; round++)); do
	for row in "${rows[@]}"; do
		rate=${row%%:*} size=${row##*:}
		if [ -n "${PEER_CMD:-}" ] && ((round % 2 == 0)); then
			run_peer "$rate" "$size" "$round"
			run_ours "$rate" "$size" "$round"
		elif [ -n "${PEER_CMD:-}" ]; then
			run_ours "$rate" "$size" "$round"
			run_peer "$rate" "$size" "$round"
		else
			run_ours "$rate" "$size" "$round"
		fi
	done
done
