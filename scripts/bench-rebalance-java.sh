#!/usr/bin/env bash
# consumer.churn of scripts/bench-rebalance.yml with Kafka's own Java consumer
# as the group's members beside franz-go's: is the consumer protocol's pause
# under churn KIP-848's or the client's? Three real Kafka brokers
# (internal/kafkatest/cmd/kafka-cluster), and per run one program that
# creates its topic (6 partitions, RF 3), produces 1,000 records/s x 512 B
# (acks=all) to two members of a fresh group for 10 s of warm-up and then
# 30 s while a third joins every 10 s and leaves 5 s later, and prints one
# JSON line over the 30 s: the end-to-end latency (now - the record's
# CreateTime, set by the producer) p50/p99/max over every record's first
# read, the time a moved partition is owned by nobody (from its revocation
# to its next assignment callback: median, max, moves), records lost and
# read again, assignment changes. The Java program
# (internal/kafkatest/java/ChurnE2E.java, compiled here into $OUT/classes
# against the jars of scripts/kafka.sh lib) uses Kafka's producer and consumer (in a JVM with C1 only and the serial
# collector, less CPU beside the brokers); the Go one
# (tools/kgo-churn) franz-go's, the same way. The runs go
# round by round after one uncounted run, classic then consumer, the client
# order alternating;
# every line goes to $OUT/runs.jsonl, and the medians per client and
# protocol to stdout at the end.
#
# Usage: scripts/bench-rebalance-java.sh
# Settings: ROUNDS=3 DURATION=30 (s) OUT=<dir>
#   HEARTBEAT_MS=<ms>: the brokers' group.consumer.heartbeat.interval.ms
#   (and its minimum) instead of the default 5 s
# Needs go and a JDK 17+ (javac).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/go-env.sh" # GOTOOLCHAIN=go<go.mod's go line>, GO_TOOLS_CACHE
cd "$(dirname "$0")/.."
out=${OUT:-$(mktemp -d)}
rounds=${ROUNDS:-3}
duration=${DURATION:-30}
mkdir -p "$out/classes"
lib=$(scripts/kafka.sh lib)
javac -d "$out/classes" -cp "$lib/*" internal/kafkatest/java/ChurnE2E.java
go build -o "$out/kgo-churn" ./tools/kgo-churn
go build -o "$out/kafka-cluster" ./internal/kafkatest/cmd/kafka-cluster
config=()
if [ -n "${HEARTBEAT_MS:-}" ]; then
  config=(-config "group.consumer.heartbeat.interval.ms=$HEARTBEAT_MS" -config "group.consumer.min.heartbeat.interval.ms=$HEARTBEAT_MS")
fi
coproc cluster { exec "$out/kafka-cluster" -nodes 3 "${config[@]}" 2>"$out/cluster.log"; }
trap 'kill "$cluster_PID" 2>/dev/null || true; wait' EXIT
bootstrap=
while read -r line <&"${cluster[0]}"; do
  case $line in BOOTSTRAP=*) bootstrap=${line#BOOTSTRAP=}; break ;; esac
done
[ -n "$bootstrap" ] || { cat "$out/cluster.log" >&2; exit 1; }

run() { # client protocol round
  local topic="churn-$1-$2-$3" line
  case $1 in
  java) line=$(java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xmx512m -cp "$out/classes:$lib/*" -Dlog4j2.configurationFile="$(scripts/kafka.sh log4j)" \
    ChurnE2E "$bootstrap" "$topic" "$2" "$duration" 2>>"$out/java.log") ;;
  franz-go) line=$("$out/kgo-churn" -brokers "$bootstrap" -topic "$topic" -protocol "$2" \
    -duration "${duration}s" 2>>"$out/kgo-churn.log") ;;
  esac
  echo "$line" | jq -c --argjson round "$3" --arg load "$(cut -d' ' -f1-3 /proc/loadavg)" '. + {round: $round, load: $load}' |
    tee -a "$out/runs.jsonl"
}

# A run that is not counted first: the brokers' first group (and
# __consumer_offsets) and their JIT warm-up made the first run of a fresh
# cluster several times slower than the same run later.
"$out/kgo-churn" -brokers "$bootstrap" -topic churn-warm-up -protocol classic -duration 5s -warmup 5s \
  >/dev/null 2>>"$out/kgo-churn.log"
: >"$out/runs.jsonl"
for round in $(seq "$rounds"); do
  clients=(java franz-go)
  [ $((round % 2)) -eq 0 ] && clients=(franz-go java)
  for protocol in classic consumer; do
    for client in "${clients[@]}"; do run "$client" "$protocol" "$round"; done
  done
done
echo "medians over $rounds rounds (ms; lost, duplicates and assignment changes summed)"
jq -rs 'def median: sort | if length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end;
  group_by(.client + " " + .protocol)[] |
  "\(.[0].client) \(.[0].protocol): e2e p50 \(map(.e2e_p50_ms) | median) p99 \(map(.e2e_p99_ms) | median) max \(map(.e2e_max_ms) | median)," +
  " unowned median \(map(.unowned_p50_ms) | median) max \(map(.unowned_max_ms) | median) (moves \(map(.moves) | join(", "));" +
  " unowned times of all rounds: median \(map(.unowned_ms) | add | median) max \(map(.unowned_ms) | add | max), \(map(.unowned_ms) | add | map(select(. >= 1000)) | length) of \(map(.unowned_ms) | add | length) ≥ 1 s)" +
  " (p99 per round \(map(.e2e_p99_ms) | join(", "))), lost \(map(.lost) | add), duplicates \(map(.duplicates) | add)," +
  " assignment changes \(map(.assignment_changes) | join(", "))"' "$out/runs.jsonl"
