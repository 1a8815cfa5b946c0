#!/usr/bin/env bash
# Achieved rate against target on the embedded cluster, and the exporter's CPU
# and RSS meanwhile (the embedded brokers run in the same process, so they are
# included). Usage: scripts/bench-embedded.sh [seconds] [rate ...]
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/go-env.sh" # GOTOOLCHAIN=go<go.mod's go line>, GO_TOOLS_CACHE
cd "$(dirname "$0")/.."
secs=${1:-60}
shift || true
rates=("${@:-1000 10000}")
[ $# -gt 0 ] || rates=(1000 10000)
bin=$(mktemp -d)/kafka_bench_exporter
go build -o "$bin" ./cmd/kafka_bench_exporter
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
p99_window() { # before-scrape after-scrape: upper bound (ms) of the bucket holding p99
  awk -v A="$1" '
    /^kafka_bench_produce_latency_seconds_bucket[{]/ {
      match($1, /le="[^"]*"/); le = substr($1, RSTART + 4, RLENGTH - 5)
      if (FILENAME == A) d[le] -= $2; else d[le] += $2
    }
    END {
      n = 0
      for (le in d) { n++; k[n] = le; v[n] = (le == "+Inf") ? 1e308 : le + 0 }
      for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j-1] > v[j]; j--) {
        t = v[j]; v[j] = v[j-1]; v[j-1] = t; t = k[j]; k[j] = k[j-1]; k[j-1] = t
      }
      for (i = 1; i <= n; i++) if (d[k[i]] >= 0.99 * d["+Inf"]) { printf "%s", (k[i] == "+Inf" ? "+Inf" : k[i] * 1000); exit }
    }' "$1" "$2"
}
metric() { # name labels-regex file
  awk -v n="$1" -v l="$2" '$1 ~ "^"n"({|$)" && $1 ~ l {s+=$2} END {printf "%.6f", s}' "$3"
}
printf '| target rec/s | seconds | achieved rec/s | achieved / target | consumed rec/s | lost | dup | CPU (cores) | RSS MiB | p99 produce ms |\n|---|---|---|---|---|---|---|---|---|---|\n'
for rate in "${rates[@]}"; do
  "$bin" --web.listen-address=127.0.0.1:$port --probe.rate="$rate" --probe.record-size=1024 --log.level=warn >/dev/null 2>&1 &
  pid=$!
  until curl -sf "127.0.0.1:$port/-/ready" >/dev/null; do sleep 0.2; done
  sleep 5 # past start-up
  a=$(mktemp); b=$(mktemp)
  curl -s "127.0.0.1:$port/metrics" >"$a"; t0=$(date +%s.%N)
  sleep "$secs"
  curl -s "127.0.0.1:$port/metrics" >"$b"; t1=$(date +%s.%N)
  kill -TERM $pid; wait $pid || true
  el=$(echo "$t1 - $t0" | bc -l)
  p0=$(metric kafka_bench_produced_records_total . "$a"); p1=$(metric kafka_bench_produced_records_total . "$b")
  c0=$(metric kafka_bench_consumed_records_total . "$a"); c1=$(metric kafka_bench_consumed_records_total . "$b")
  cpu0=$(metric process_cpu_seconds_total . "$a"); cpu1=$(metric process_cpu_seconds_total . "$b")
  rss=$(metric process_resident_memory_bytes . "$b")
  lost=$(metric kafka_bench_records_lost_total . "$b"); dup=$(metric kafka_bench_records_duplicated_total . "$b")
  # p99 from the classic buckets of the window: the delta of the cumulative
  # counts per bucket bound, summed over every series (one per partition
  # leader: the broker label), then the first bound holding 99 %.
  p99=$(p99_window "$a" "$b")
  printf '| %s | %.0f | %.1f | %.4f | %.1f | %.0f | %.0f | %.3f | %.0f | ≤ %s |\n' "$rate" "$el" \
    "$(echo "($p1-$p0)/$el" | bc -l)" "$(echo "($p1-$p0)/$el/$rate" | bc -l)" "$(echo "($c1-$c0)/$el" | bc -l)" \
    "$lost" "$dup" "$(echo "($cpu1-$cpu0)/$el" | bc -l)" "$(echo "$rss/1048576" | bc -l)" "$p99"
  rm -f "$a" "$b"
done
