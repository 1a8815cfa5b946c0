#!/usr/bin/env bash
# Replication latency across a real MirrorMaker 2: two one-node Kafka clusters
# (A, B) from internal/kafkatest, MirrorMaker 2 in dedicated mode copying the
# probe topic A -> B as A.<topic>, and the exporter with a probe whose replica
# block reads the copy on B. For each rate it prints one row: the replication
# latency percentiles (intended send time on A -> read on B) and, for
# comparison, the source's own end-to-end p99, over a window of steady state.
# Usage: scripts/bench-replication.sh [seconds] [rate ...]   (default: 60 s at 200 records/s)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/go-env.sh" # GOTOOLCHAIN=go<go.mod's go line>, GO_TOOLS_CACHE
cd "$(dirname "$0")/.."
secs=${1:-60}
shift || true
rates=("$@")
[ $# -gt 0 ] || rates=(200)
work=$(mktemp -d)
# shellcheck source=scripts/cluster.sh
. scripts/cluster.sh
a_pid="" b_pid="" mm_pid="" x_pid=""
cleanup() {
  for pid in $x_pid $mm_pid; do kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  for pid in $b_pid $a_pid; do cluster=$pid; stop_cluster; done
  rm -rf "$work"
}
trap cleanup EXIT
start_cluster "$work" && a_pid=$cluster && A=$BS
mkdir -p "$work/target" && start_cluster "$work/target" && b_pid=$cluster && B=$BS
go build -o "$work/kafka-mirror" ./internal/kafkatest/cmd/kafka-mirror
go build -o "$work/kafka_bench_exporter" ./cmd/kafka_bench_exporter
"$work/kafka-mirror" -source "$A" -target "$B" -topics 'kafka-bench-repl-.*' >"$work/mirror.out" 2>"$work/mirror.err" &
mm_pid=$!
until grep -q READY "$work/mirror.out" 2>/dev/null; do
  kill -0 "$mm_pid" 2>/dev/null || { cat "$work/mirror.err" >&2; exit 1; }
  sleep 0.5
done
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')

# quantile Q BEFORE AFTER FAMILY: histogram_quantile over the window, as
# Prometheus computes it from classic buckets (linear within a bucket), in ms.
quantile() {
  awk -v Q="$1" -v A="$2" -v F="$4" '
    $1 ~ "^"F"_bucket[{]" {
      match($1, /le="[^"]*"/); le = substr($1, RSTART + 4, RLENGTH - 5)
      if (FILENAME == A) d[le] -= $2; else d[le] += $2
    }
    END {
      n = 0
      for (le in d) { n++; k[n] = le; v[n] = (le == "+Inf") ? 1e308 : le + 0 }
      for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j-1] > v[j]; j--) {
        t = v[j]; v[j] = v[j-1]; v[j-1] = t; t = k[j]; k[j] = k[j-1]; k[j-1] = t
      }
      rank = Q * d["+Inf"]; lo = 0; below = 0
      for (i = 1; i <= n; i++) {
        if (d[k[i]] >= rank) {
          if (k[i] == "+Inf") { printf "%.1f", lo * 1000; exit }
          printf "%.1f", (lo + (v[i] - lo) * (rank - below) / (d[k[i]] - below)) * 1000; exit
        }
        lo = v[i]; below = d[k[i]]
      }
    }' "$2" "$3"
}
metric() { # name file: sum of the family's series
  awk -v n="$1" '$1 ~ "^"n"({|$)" {s+=$2} END {printf "%.0f", s}' "$2"
}

printf '| rate rec/s | seconds | records read on B | replication p50 ms | p99 ms | p99.9 ms | max ms | source end-to-end p99 ms | lag (records) | lost | duplicated |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|\n'
for rate in "${rates[@]}"; do
  name=repl-$rate
  cat >"$work/probes.yml" <<YML
kafka: {brokers: [$A]}
probes:
  - name: $name
    rate: $rate
    lag_interval: 1s
    create_topic: {partitions: 3, replication_factor: 1}
    replica: {kafka: {brokers: [$B]}, source_alias: A, target_alias: B}
YML
  "$work/kafka_bench_exporter" --config.file="$work/probes.yml" --web.listen-address=127.0.0.1:$port \
    --no-collector.host --log.level=warn >"$work/exporter.log" 2>&1 &
  x_pid=$!
  # MirrorMaker 2 notices the new topic, creates its copy and copies it from
  # the start: wait until the copy is read with less than a second of lag.
  for _ in $(seq 600); do
    curl -s "127.0.0.1:$port/metrics" >"$work/m" || true
    read_n=$(metric kafka_bench_replication_consumed_records_total "$work/m")
    lag=$(metric kafka_bench_replication_lag_records "$work/m")
    [ "${read_n:-0}" -gt 0 ] && [ "${lag:-0}" -le "$rate" ] && break
    sleep 1
  done
  sleep 5
  curl -s "127.0.0.1:$port/metrics" >"$work/before.prom"; t0=$(date +%s.%N)
  sleep "$secs"
  curl -s "127.0.0.1:$port/metrics" >"$work/after.prom"; t1=$(date +%s.%N)
  kill -TERM "$x_pid"; wait "$x_pid" || true; x_pid=""
  f=kafka_bench_replication_latency_seconds
  max=$(quantile 1 "$work/before.prom" "$work/after.prom" $f)
  printf '| %s | %.0f | %s | %s | %s | %s | ≤ %s | %s | %s | %s | %s |\n' "$rate" "$(echo "$t1 - $t0" | bc -l)" \
    "$(($(metric kafka_bench_replication_consumed_records_total "$work/after.prom") - $(metric kafka_bench_replication_consumed_records_total "$work/before.prom")))" \
    "$(quantile 0.5 "$work/before.prom" "$work/after.prom" $f)" "$(quantile 0.99 "$work/before.prom" "$work/after.prom" $f)" "$(quantile 0.999 "$work/before.prom" "$work/after.prom" $f)" "$max" \
    "$(quantile 0.99 "$work/before.prom" "$work/after.prom" kafka_bench_end_to_end_latency_seconds)" \
    "$(metric kafka_bench_replication_lag_records "$work/after.prom")" "$(metric kafka_bench_replication_records_lost_total "$work/after.prom")" \
    "$(metric kafka_bench_replication_records_duplicated_total "$work/after.prom")"
done
