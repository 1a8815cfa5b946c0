#!/usr/bin/env bash
# The seeds' consumer sweep, warm and cold: kafka-consumer-perf-test --fetch-size
# 1024, 1024000 and 10240000 with --threads 10 (max.partition.fetch.bytes and
# consumers here), reading a topic of 10 partitions filled once by `bench`, on a
# local one-node Kafka (internal/kafkatest). Warm reads find the topic in the
# page cache; cold ones (`cold: true`) first drop the page cache of its segment
# files (posix_fadvise DONTNEED). Rounds alternate warm and cold (ROUNDS, 2 by
# default, each a shuffled pass over the sweep); the results are in $OUT
# (warm-N.json, cold-N.json); the MB/s table is printed at the end, with what
# each pass read from the whole disks (/proc/diskstats): a cold pass reads the
# topic from the disk, a warm one from the page cache.
#
#   OUT=/tmp/cold RECORDS=200000 ROUNDS=2 scripts/bench-consume-cold.sh
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/go-env.sh"
cd "$(dirname "$0")/.."
OUT=${OUT:-$(mktemp -d)}
RECORDS=${RECORDS:-200000}
ROUNDS=${ROUNDS:-2}
mkdir -p "$OUT"
go build -o "$OUT/kbe" ./cmd/kafka_bench_exporter
go build -o "$OUT/kafka-cluster" ./internal/kafkatest/cmd/kafka-cluster
"$OUT/kafka-cluster" -nodes 1 -heap-mb 1024 >"$OUT/cluster.out" 2>"$OUT/cluster.log" &
cluster=$!
trap 'kill -INT $cluster 2>/dev/null; wait $cluster 2>/dev/null || true' EXIT
for _ in $(seq 1 300); do
	grep -q '^BOOTSTRAP=' "$OUT/cluster.out" 2>/dev/null && break
	kill -0 $cluster 2>/dev/null || { cat "$OUT/cluster.log" >&2; exit 1; }
	sleep 1
done
bootstrap=$(sed -n 's/^BOOTSTRAP=//p' "$OUT/cluster.out")
[[ -n $bootstrap ]] || { echo "bench-consume-cold: the cluster did not start" >&2; exit 1; }
topic=consume-cold
cat >"$OUT/fill.yml" <<YAML
kafka: {brokers: [$bootstrap]}
num_records: $RECORDS
delete_topics: false
defaults:
  topic: $topic
  record_size: 1024
  create_topic: {partitions: 10, replication_factor: 1}
  consumer: {enabled: false}
YAML
"$OUT/kbe" bench --bench.file="$OUT/fill.yml" >"$OUT/fill.txt" 2>"$OUT/fill.log"
sweep() { # sweep COLD FILE
	cat >"$2" <<YAML
kafka: {brokers: [$bootstrap]}
num_records: $RECORDS
consume_only: true
cold: $1
defaults:
  topic: $topic
  record_size: 1024
matrix:
  max.partition.fetch.bytes: [1024, 1024000, 10240000]
  consumers: [10]
YAML
}
sweep false "$OUT/warm.yml"
sweep true "$OUT/cold.yml"
# sectors read from the whole disks (partitions and device-mapper volumes left
# out, so no read counts twice)
sectors() { awk '$3 ~ /^(sd[a-z]+|vd[a-z]+|xvd[a-z]+|nvme[0-9]+n[0-9]+)$/ {s += $6} END {print s + 0}' /proc/diskstats; }
for round in $(seq 1 "$ROUNDS"); do
	order="warm cold"
	((round % 2 == 0)) && order="cold warm"
	for mode in $order; do
		before=$(sectors)
		"$OUT/kbe" bench --bench.file="$OUT/$mode.yml" --format=json --output="$OUT/$mode-$round.json" \
			>"$OUT/$mode-$round.txt" 2>"$OUT/$mode-$round.log"
		echo "$mode round $round: $((($(sectors) - before) * 512 / 1048576)) MiB read from the disks (3 reads of the topic)" >>"$OUT/disk.txt"
	done
done
cat "$OUT/disk.txt"
echo "| max.partition.fetch.bytes | consumers | page cache | MB/s, median | MB/s, each round | records/s, each round |"
echo "|---:|---:|---|---:|---|---|"
for mode in warm cold; do
	jq -rs --arg mode "$mode" '
		def median: sort | if length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end;
		[.[][]] | group_by(.params["max.partition.fetch.bytes"]) | .[] |
		"| \(.[0].params["max.partition.fetch.bytes"]) | \(.[0].params.consumers) | \(.[0].consume.page_cache // $mode) | \([.[].consume.mb_per_sec] | median | . * 10 | round / 10) | \([.[].consume.mb_per_sec] | map(tostring) | join(" ")) | \([.[].consume.records_per_sec | floor] | map(tostring) | join(" ")) |"
	' "$OUT"/"$mode"-*.json
done
echo
echo "cold / warm, medians of MB/s:"
jq -rs '
	def median: sort | if length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end;
	[.[][] | {f: .params["max.partition.fetch.bytes"], cold: (.consume.page_cache == "cold"), mb: .consume.mb_per_sec}] |
	group_by(.f) | .[] |
	"max.partition.fetch.bytes \(.[0].f): \(([.[] | select(.cold) | .mb] | median) / ([.[] | select(.cold | not) | .mb] | median) * 100 | round / 100)"
' "$OUT"/warm-*.json "$OUT"/cold-*.json
