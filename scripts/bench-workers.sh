#!/usr/bin/env bash
# One bench process against a sweep of two worker processes at the same total
# rate, on one real single-broker Kafka (internal/kafkatest, jars pinned by
# scripts/kafka.sh), rounds alternating which goes first. The two-worker
# side is merged with `bench merge` from the results topic; both sides print
# the seeds-shaped table, which this script collects in report.md.
#
# Usage: scripts/bench-workers.sh
# Settings (environment): ROUNDS=2 RATE=20000 SECS=20 SIZE=100 PARTITIONS=6 ACKS=1
#   OUT=<dir for logs and report.md>
# Needs go, java 17+ and mvn (scripts/kafka.sh fetches the Kafka jars once).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/go-env.sh" # GOTOOLCHAIN=go<go.mod's go line>, GO_TOOLS_CACHE
cd "$(dirname "$0")/.."
for tool in go java mvn; do
  command -v "$tool" >/dev/null 2>&1 ||
    { echo "bench-workers: $tool not found (apt-get install golang openjdk-17-jdk-headless maven)" >&2; exit 1; }
done
ROUNDS=${ROUNDS:-2}
RATE=${RATE:-20000}
SECS=${SECS:-20}
SIZE=${SIZE:-100}
PARTITIONS=${PARTITIONS:-6}
ACKS=${ACKS:-1}

work=${OUT:-$(mktemp -d /tmp/bench-workers.XXXXXX)}
mkdir -p "$work"
report=$work/report.md
: >"$report"
say() { echo "$@" | tee -a "$report"; }
log() { echo "bench-workers: $*" >&2; }

log "building into $work"
go build -o "$work/kafka_bench_exporter" ./cmd/kafka_bench_exporter
bin=$work/kafka_bench_exporter
# shellcheck source=scripts/cluster.sh
. scripts/cluster.sh
trap stop_cluster EXIT
start_cluster "$work" -config file.delete.delay.ms=0
log "Kafka $(scripts/kafka.sh version) at $BS"

file=$work/bench.yml
cat >"$file" <<YAML
kafka: {brokers: [$BS]}
duration: ${SECS}s
warmup_records: 1000
rate: $RATE
drain_timeout: 20s
defaults:
  record_size: $SIZE
  create_topic: {partitions: $PARTITIONS}
  producer: {acks: "$ACKS"}
YAML

# tables prints the Markdown tables of a bench's stdout, a blank line after each.
tables() { awk '/^\| / {print; t=1; next} t {print ""; t=0} END {if (t) print ""}' "$1"; }

one() { # round
  "$bin" bench --bench.file="$file" --log.level=warn >"$work/one-$1.out" 2>"$work/one-$1.err"
  say "1 worker, round $1:"
  say ""
  tables "$work/one-$1.out" | tee -a "$report"
}
two() { # round
  local start run=workers-$1 pids=()
  start=$(date -u -d '+5 sec' +%Y-%m-%dT%H:%M:%SZ)
  for i in 0 1; do
    "$bin" bench --bench.file="$file" --log.level=warn --workers=2 --worker-index=$i --start-at="$start" --run="$run" \
      >"$work/two-$1-$i.out" 2>"$work/two-$1-$i.err" &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid"; done
  "$bin" bench merge --kafka.brokers="$BS" --run="$run" --workers=2 --timeout=1m >"$work/merged-$1.out" 2>"$work/merged-$1.err"
  say "2 workers (merged), round $1:"
  say ""
  tables "$work/merged-$1.out" | tee -a "$report"
  sed -n 's/^kafka_bench_exporter bench merge: /merge: /p' "$work/merged-$1.err" | tee -a "$report"
}

say "bench-workers: $RATE records/s x $SIZE B for ${SECS}s, $PARTITIONS partitions, acks=$ACKS, Kafka $(scripts/kafka.sh version), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
say ""
for round in $(seq "$ROUNDS"); do
  if [ $((round % 2)) -eq 1 ]; then one "$round"; two "$round"; else two "$round"; one "$round"; fi
done
log "report: $report"
