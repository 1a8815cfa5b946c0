#!/usr/bin/env bash
# kafka_bench_exporter's `bench` against Apache Kafka's own perf tools, side by
# side on one real single-broker Kafka (internal/kafkatest, jars pinned by
# scripts/kafka.sh), alternating the two tools round by round:
#
#   produce  ours vs org.apache.kafka.tools.ProducerPerformance --throughput -1,
#            100 B / 1 KiB / 10 KiB records, acks=1 and acks=all, same topic
#            (partitions, replication factor) and producer settings; realistic
#            payload on both sides: ours random_letters (fresh padding per
#            record), Kafka's fresh random A-Z per record; in every round,
#            right after ours, the client library alone (kgo-floor produce:
#            franz-go with nothing of ours) on a topic of its own
#   produce-txn  the same with a transactional producer: ours with
#            producer.transactional.id and transaction.duration.ms vs
#            ProducerPerformance --transactional-id --transaction-duration-ms
#            (TXN_DURATION_MS, default 3000), a fresh id each run, acks=all,
#            TXN_SIZES records (default 1 KiB)
#   consume  ours (consume_only) vs org.apache.kafka.tools.ConsumerPerformance
#            on the same pre-filled topic, a fresh group each run
#   share    ours (consume_only, consumer.kind share) vs
#            org.apache.kafka.tools.ShareConsumerPerformance, 1 KiB records, the
#            same members (-share-members, default 3), a fresh share group each run
#   steady   ours at a fixed rate for STEADY_SECS: achieved rate vs target
#   compression  bytes the broker stores for COMPRESSED_RECORDS x 1 KiB, ours
#            per payload kind vs ProducerPerformance, per compression type
#   seeds    the seeds-style sweep (bench/spec/testdata/valid-seeds-record-size.yml)
#   cost     the exporter daemon, one probe at 1,000 rec/s x 1 KiB, scraped
#            every 15 s for COST_SECS: CPU (fraction of one core) and RSS
#
# The measuring, the bench files and the statistics are Go's:
# tools/bench-compare vs-kafka, which this runs.
#
# Usage: scripts/bench-vs-kafka.sh [produce] [produce-txn] [consume] [share] [steady] [compression] [seeds] [cost]   (default: all)
# Settings (environment, or the command's flags: -rounds, -records, ...): ROUNDS=3 RECORDS=1000000
#   RECORDS_10K=200000 PARTITIONS=9 SIZES="100 1024 10240" ACKS_LIST="1 all" STEADY_RATES="1000 10000 50000"
#   TXN_SIZES=1024 TXN_DURATION_MS=3000 STEADY_SECS=60 COST_SECS=300 COMPRESSED_RECORDS=100000 CODECS="lz4 zstd"
#   PAYLOAD=random_letters SEEDS_FILE=bench/spec/testdata/valid-seeds-record-size.yml OUT=<dir for logs and report.md>
# Needs go, java 17+ and mvn (scripts/kafka.sh fetches the Kafka jars once).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/go-env.sh" # GOTOOLCHAIN=go<go.mod's go line>, GO_TOOLS_CACHE
cd "$(dirname "$0")/.."
for tool in go java mvn; do
  command -v "$tool" >/dev/null 2>&1 ||
    { echo "bench-vs-kafka: $tool not found (apt-get install golang openjdk-17-jdk-headless maven)" >&2; exit 1; }
done
exec go run ./tools/bench-compare vs-kafka "$@"
