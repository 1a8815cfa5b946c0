#!/usr/bin/env bash
# kafka_bench_exporter's `bench` against Apache Kafka's own perf tools, side by
# side on one real single-broker Kafka (internal/kafkatest, jars pinned by
# scripts/kafka.sh), alternating the two tools round by round:
#
#   produce  ours vs org.apache.kafka.tools.ProducerPerformance --throughput -1,
#            100 B / 1 KiB / 10 KiB records, acks=1 and acks=all, same topic
#            (partitions, replication factor) and producer settings; realistic
#            payload on both sides: ours random_letters (fresh padding per
#            record), Kafka's fresh random A-Z per record
#   consume  ours (consume_only) vs org.apache.kafka.tools.ConsumerPerformance
#            on the same pre-filled topic, a fresh group each run
#   steady   ours at a fixed rate for STEADY_SECS: achieved rate vs target
#   compression  bytes the broker stores for COMPRESSED_RECORDS x 1 KiB, ours
#            per payload kind vs ProducerPerformance, per compression type
#   seeds    the seeds-style sweep (bench/spec/testdata/valid-seeds-record-size.yml)
#   cost     the exporter daemon, one probe at 1,000 rec/s x 1 KiB, scraped
#            every 15 s for COST_SECS: CPU (fraction of one core) and RSS
#
# Rows "produce" compare ProducerPerformance's records/sec, "consume" its
# nMsg.sec (whole run, group join included), "consume-fetch" fetch.nMsg.sec.
# Warm-up: Kafka 4.1's ProducerPerformance has no --warmup-records (4.2+), so
# every point starts with a round 0 of both tools that is run and discarded
# (the broker's JIT, page cache and topic metadata are then warm for both);
# the ROUNDS measured rounds alternate which tool goes first.
#
# Usage: scripts/bench-vs-kafka.sh [produce] [consume] [steady] [compression] [seeds] [cost]   (default: all)
# Settings (environment): ROUNDS=3 RECORDS=1000000 RECORDS_10K=200000
#   PARTITIONS=9 SIZES="100 1024 10240" ACKS_LIST="1 all" STEADY_RATES="1000 10000 50000"
#   STEADY_SECS=60 COST_SECS=300 COMPRESSED_RECORDS=100000 CODECS="lz4 zstd"
#   PAYLOAD=random_letters OUT=<dir for logs and report.md>
# Needs go, java 17+, mvn (scripts/kafka.sh fetches the Kafka jars once) and curl.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/go-env.sh" # GOTOOLCHAIN=go<go.mod's go line>, GO_TOOLS_CACHE
cd "$(dirname "$0")/.."
for tool in go java mvn curl; do
  command -v "$tool" >/dev/null 2>&1 ||
    { echo "bench-vs-kafka: $tool not found (apt-get install golang openjdk-17-jdk-headless maven curl)" >&2; exit 1; }
done

ROUNDS=${ROUNDS:-3}
RECORDS=${RECORDS:-1000000}
# 1M x 10 KiB is 10 GB per run, 120 GB for the producer rounds alone: more
# than this machine's page cache and free disk, so a run would measure the
# writeback of the previous one. 200,000 x 10 KiB (2 GB) keeps runs apart.
RECORDS_10K=${RECORDS_10K:-200000}
PARTITIONS=${PARTITIONS:-9}
SIZES=${SIZES:-"100 1024 10240"}
ACKS_LIST=${ACKS_LIST:-"1 all"}
STEADY_RATES=${STEADY_RATES:-"1000 10000 50000"}
STEADY_SECS=${STEADY_SECS:-60}
COST_SECS=${COST_SECS:-300}
COMPRESSED_RECORDS=${COMPRESSED_RECORDS:-100000}
CODECS=${CODECS:-"lz4 zstd"}
PAYLOAD=${PAYLOAD:-random_letters}
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(produce consume steady compression seeds cost)
want() { [[ " ${parts[*]} " == *" $1 "* ]]; }

work=${OUT:-$(mktemp -d /tmp/bench-vs-kafka.XXXXXX)}
mkdir -p "$work"
report=$work/report.md
: >"$report"
say() { echo "$@" | tee -a "$report"; }
log() { echo "bench-vs-kafka: $*" >&2; }

# Java producer defaults of Kafka 4.x, written out so both tools get them.
LINGER_MS=5 BATCH_SIZE=16384 BUFFER_MEMORY=33554432 COMPRESSION=none
# The JVM flags kafka-producer-perf-test.sh / kafka-consumer-perf-test.sh use.
TOOL_JVM="-Xmx512M -server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent -Djava.awt.headless=true"
kafka_tool() { KAFKA_BENCH_JAVA_OPTS="$TOOL_JVM" scripts/kafka.sh java-class "$@"; }

log "building into $work"
go build -o "$work/kafka_bench_exporter" ./cmd/kafka_bench_exporter
bin=$work/kafka_bench_exporter
# shellcheck source=scripts/cluster.sh
. scripts/cluster.sh
cleanup() {
  [ -z "${daemon:-}" ] || kill -TERM "$daemon" 2>/dev/null || true
  stop_cluster
}
trap cleanup EXIT
# Deleted topics' files go at once (not after 60 s, in the middle of a later run).
start_cluster "$work" -config file.delete.delay.ms=0
log "Kafka $(scripts/kafka.sh version) at $BS"

# settle lets the previous run's writes reach the disk before the next run.
settle() { sync; sleep 1; }
calc() { awk "BEGIN {print $*}"; } # floating-point arithmetic without bc
median() { sort -g | awk '{v[NR]=$1} END {if (NR%2) print v[(NR+1)/2]; else printf "%.1f\n", (v[NR/2]+v[NR/2+1])/2}'; }
records_for() { if [ "$1" -ge 10240 ]; then echo "$RECORDS_10K"; else echo "$RECORDS"; fi; }
# ProducerPerformance's final line (ours prints the same): field 4 is records/sec.
pp_rate() { awk '/records sent, .* 99\.9th\./ {r=$4} END {if (r=="") exit 1; print r}' "$1"; }
# ConsumerPerformance's result line, after its header: field 6 is nMsg.sec
# (over the whole run, group join included), field 10 fetch.nMsg.sec.
cp_rate() { awk -F', ' -v f="$2" 'prev ~ /^start\.time/ {r=$f} {prev=$0} END {if (r=="") exit 1; print r}' "$1"; }

ours_file() { # file size acks records [extra yaml lines...]; COMPRESSION, PAYLOAD from the environment
  local f=$1 size=$2 acks=$3 n=$4
  shift 4
  {
    echo "kafka: {brokers: [$BS]}"
    echo "num_records: $n"
    echo "rate: 0"
    echo "defaults:"
    echo "  record_size: $size"
    echo "  payload: {kind: $PAYLOAD}"
    echo "  create_topic: {partitions: $PARTITIONS, replication_factor: 1}"
    echo "  producer: {acks: \"$acks\", linger.ms: $LINGER_MS, batch.size: $BATCH_SIZE, buffer.memory: $BUFFER_MEMORY, compression.type: $COMPRESSION}"
    for l in "$@"; do echo "$l"; done
  } >"$f"
}

run_ours() { # log file; prints records/s
  local out=$1 file=$2
  if ! "$bin" bench --bench.file "$file" --log.level=warn >"$out" 2>"$out.err"; then
    log "ours failed: $file (see $out, $out.err)"; cat "$out.err" >&2; exit 1
  fi
}

topic_cmd() { kafka_tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$BS" "$@" >/dev/null 2>>"$work/topics.err"; }

produce_ours() { # size acks n round
  local f=$work/produce-ours-$1-$2.yml out=$work/produce-ours-$1-$2-$4.out
  ours_file "$f" "$1" "$2" "$3" "  consumer: {enabled: false}"
  run_ours "$out" "$f"
  pp_rate "$out"
}

produce_theirs() { # size acks n round
  local topic=pp-$1-$2-$4 out=$work/produce-kafka-$1-$2-$4.out
  topic_cmd --create --topic "$topic" --partitions "$PARTITIONS" --replication-factor 1
  kafka_tool org.apache.kafka.tools.ProducerPerformance --topic "$topic" --num-records "$3" --throughput -1 \
    --record-size "$1" --producer-props bootstrap.servers="$BS" acks="$2" linger.ms=$LINGER_MS \
    batch.size=$BATCH_SIZE buffer.memory=$BUFFER_MEMORY compression.type=$COMPRESSION >"$out" 2>"$out.err"
  topic_cmd --delete --topic "$topic"
  pp_rate "$out"
}

results=$work/results.tsv
: >"$results"
compare_row() { # kind size acks
  local ours theirs
  ours=$(awk -v k="$1" -v s="$2" -v a="$3" '$1==k && $2==s && $3==a && $4=="ours" {print $6}' "$results" | median)
  theirs=$(awk -v k="$1" -v s="$2" -v a="$3" '$1==k && $2==s && $3==a && $4=="kafka" {print $6}' "$results" | median)
  all_ours=$(awk -v k="$1" -v s="$2" -v a="$3" '$1==k && $2==s && $3==a && $4=="ours" {printf "%s%.0f", sep, $6; sep=" "}' "$results")
  all_theirs=$(awk -v k="$1" -v s="$2" -v a="$3" '$1==k && $2==s && $3==a && $4=="kafka" {printf "%s%.0f", sep, $6; sep=" "}' "$results")
  say "$(printf '| %s | %s | %s | %.0f | %.0f | **%.2f** | %s | %s |' "$1" "$2" "$3" "$ours" "$theirs" "$(calc "$ours / $theirs")" "$all_ours" "$all_theirs")"
}

if want produce || want consume; then
  say ""
  say "### Ours vs Kafka's perf tools (records/s, median of $ROUNDS rounds after a discarded warm-up round, alternating; ours: payload $PAYLOAD)"
  say ""
  say "| test | record size (B) | acks | ours | Kafka | ours / Kafka | ours, each round | Kafka, each round |"
  say "|---|---:|---|---:|---:|---:|---|---|"
fi

if want produce; then
  for size in $SIZES; do
    n=$(records_for "$size")
    for acks in $ACKS_LIST; do
      for r in $(seq 0 "$ROUNDS"); do
        # Alternate who goes first, so drift (disk, page cache) hits both.
        order="ours kafka"; [ $((r % 2)) -eq 0 ] && order="kafka ours"
        for tool in $order; do
          settle
          if [ "$tool" = ours ]; then v=$(produce_ours "$size" "$acks" "$n" "$r"); else v=$(produce_theirs "$size" "$acks" "$n" "$r"); fi
          [ "$r" -eq 0 ] || printf 'produce\t%s\t%s\t%s\t%s\t%s\n' "$size" "$acks" "$tool" "$r" "$v" >>"$results"
          log "produce $size B acks=$acks round $r$([ "$r" -gt 0 ] || echo ' (warm-up, discarded)') $tool: $v records/s ($n records)"
        done
      done
      compare_row produce "$size" "$acks"
    done
  done
fi

if want consume; then
  for size in $SIZES; do
    n=$(records_for "$size")
    topic=fill-$size
    # Pre-filled by ours: our consumer then decodes and tracks every record
    # (ConsumerPerformance reads opaque bytes either way).
    f=$work/fill-$size.yml
    ours_file "$f" "$size" 1 "$n" "  topic: $topic" "  consumer: {enabled: false}"
    settle
    run_ours "$work/fill-$size.out" "$f"
    f=$work/consume-ours-$size.yml
    ours_file "$f" "$size" 1 "$n" "  topic: $topic" "consume_only: true"
    for r in $(seq 0 "$ROUNDS"); do # round 0: warm-up, discarded
      order="ours kafka"; [ $((r % 2)) -eq 0 ] && order="kafka ours"
      for tool in $order; do
        out=$work/consume-$tool-$size-$r.out
        if [ "$tool" = ours ]; then
          run_ours "$out" "$f"
        else
          kafka_tool org.apache.kafka.tools.ConsumerPerformance --bootstrap-server "$BS" --topic "$topic" \
            --messages "$n" --group "cp-$size-$r" --timeout 60000 >"$out" 2>"$out.err"
        fi
        v=$(cp_rate "$out" 6)
        if [ "$r" -gt 0 ]; then
          printf 'consume\t%s\t-\t%s\t%s\t%s\n' "$size" "$tool" "$r" "$v" >>"$results"
          printf 'consume-fetch\t%s\t-\t%s\t%s\t%s\n' "$size" "$tool" "$r" "$(cp_rate "$out" 10)" >>"$results"
        fi
        log "consume $size B round $r $tool: $v records/s ($n records)"
      done
    done
    compare_row consume "$size" -
    compare_row consume-fetch "$size" -
    topic_cmd --delete --topic "$topic"
  done
fi

if want steady; then
  say ""
  say "### Steady state: ours at a fixed rate for ${STEADY_SECS} s (1 KiB, acks=all, consumer on)"
  say ""
  say "| target rec/s | records | achieved rec/s | achieved / target | p99 produce ms | p99 end-to-end ms |"
  say "|---:|---:|---:|---:|---:|---:|"
  for rate in $STEADY_RATES; do
    f=$work/steady-$rate.yml
    {
      echo "kafka: {brokers: [$BS]}"
      echo "duration: ${STEADY_SECS}s"
      echo "rate: $rate"
      echo "defaults:"
      echo "  record_size: 1024"
      echo "  create_topic: {partitions: $PARTITIONS, replication_factor: 1}"
    } >"$f"
    settle
    out=$work/steady-$rate.out
    "$bin" bench --bench.file "$f" --format csv --log.level=warn >"$out" 2>"$out.err" || { cat "$out.err" >&2; exit 1; }
    # Records and records/s from the ProducerPerformance line (6 decimals);
    # p99 and end-to-end p99 from the CSV table (columns 9 and 12).
    read -r recs tps < <(awk '/records sent, .* 99\.9th\./ {print $1, $4}' "$out")
    IFS=, read -r _ _ _ _ _ _ _ _ p99 _ _ e2e99 _ < <(grep -A1 '^records,consumed' "$out" | tail -1)
    say "$(printf '| %s | %s | %.1f | %.5f | %s | %s |' "$rate" "$recs" "$tps" "$(calc "$tps / $rate")" "$p99" "$e2e99")"
    log "steady $rate rec/s: achieved $tps"
  done
fi

if want compression; then
  # A payload file of JSON-like events of about 1 KiB (words from a small
  # vocabulary, as logs and events are), one per line, for kind file and
  # ProducerPerformance's --payload-file alike.
  pfile=$work/payload.jsonl
  awk 'BEGIN {
    srand(42); split("alpha beta gamma delta error info warn user order item cart click view search checkout login logout session page price", w, " ")
    for (i = 0; i < 2000; i++) {
      line = sprintf("{\"id\":%d,\"user\":\"u%05d\",\"event\":\"%s\",\"ts\":%d,\"text\":\"", i, int(rand() * 50000), w[1 + int(rand() * 20)], 1700000000000 + i * 37)
      while (length(line) < 1000) line = line w[1 + int(rand() * 20)] " "
      print line "\"}"
    }
  }' >"$pfile"
  entry_bytes=$(awk '{s += length($0)} END {printf "%.1f", s / NR}' "$pfile")
  topic_bytes() { # topic: bytes in the broker's log dirs
    kafka_tool org.apache.kafka.tools.LogDirsCommand --bootstrap-server "$BS" --describe --topic-list "$1" 2>>"$work/topics.err" |
      grep -o '"size":[0-9]*' | awk -F: '{s += $2} END {print s + 0}'
  }
  n=$COMPRESSED_RECORDS
  say ""
  say "### Bytes the broker stores for $n records (acks=1, linger.ms=$LINGER_MS, batch.size=$BATCH_SIZE, $PARTITIONS partitions)"
  say ""
  say "Payload file: $n records drawn from 2,000 JSON-like lines of $entry_bytes B on average (generated by this script)."
  say ""
  say "| compression.type | producer | payload | record value B | stored MB | stored / raw |"
  say "|---|---|---|---:|---:|---:|"
  for codec in $CODECS; do
    for kind in random_letters random_bytes file; do
      topic=cmp-ours-$kind-$codec
      f=$work/$topic.yml
      kindkeys=$kind # the inside of payload: {kind: ...}
      [ "$kind" = file ] && kindkeys="file, file: $pfile"
      PAYLOAD=$kindkeys COMPRESSION=$codec ours_file "$f" 1024 1 "$n" "  topic: $topic" "  consumer: {enabled: false}"
      echo "delete_topics: false" >>"$f"
      settle
      run_ours "$work/$topic.out" "$f"
      value=1024; [ "$kind" = file ] && value=$(calc "36 + $entry_bytes")
      stored=$(topic_bytes "$topic")
      say "$(printf '| %s | ours | %s | %s | %.1f | %.3f |' "$codec" "$kind" "$value" "$(calc "$stored / 1000000")" "$(calc "$stored / ($n * $value)")")"
      topic_cmd --delete --topic "$topic"
    done
    for kind in random_letters file; do
      topic=cmp-pp-$kind-$codec
      topic_cmd --create --topic "$topic" --partitions "$PARTITIONS" --replication-factor 1
      payload=(--record-size 1024); value=1024
      [ "$kind" = file ] && { payload=(--payload-file "$pfile"); value=$entry_bytes; }
      settle
      kafka_tool org.apache.kafka.tools.ProducerPerformance --topic "$topic" --num-records "$n" --throughput -1 "${payload[@]}" \
        --producer-props bootstrap.servers="$BS" acks=1 linger.ms=$LINGER_MS batch.size=$BATCH_SIZE \
        buffer.memory=$BUFFER_MEMORY compression.type="$codec" >"$work/$topic.out" 2>"$work/$topic.err"
      stored=$(topic_bytes "$topic")
      label=$kind; [ "$kind" = random_letters ] && label="random A-Z (built in)"; [ "$kind" = file ] && label="--payload-file"
      say "$(printf '| %s | ProducerPerformance | %s | %s | %.1f | %.3f |' "$codec" "$label" "$value" "$(calc "$stored / 1000000")" "$(calc "$stored / ($n * $value)")")"
      topic_cmd --delete --topic "$topic"
    done
  done
fi

if want seeds; then
  settle
  say ""
  say "### A seeds-style sweep: bench/spec/testdata/valid-seeds-record-size.yml"
  say ""
  "$bin" bench --bench.file bench/spec/testdata/valid-seeds-record-size.yml --kafka.brokers "$BS" --log.level=warn \
    --output "$work/seeds.md" >"$work/seeds.out" 2>"$work/seeds.err" || { cat "$work/seeds.err" >&2; exit 1; }
  tee -a "$report" <"$work/seeds.md"
fi

if want cost; then
  settle
  sleep 20 # the broker idle again after the runs above
  port=
  for p in $(seq 19100 19199); do # a free port: nothing answers on it
    (: </dev/tcp/127.0.0.1/$p) 2>/dev/null || { port=$p; break; }
  done
  "$bin" --kafka.brokers="$BS" --probe.rate=1000 --probe.record-size=1024 --web.listen-address="127.0.0.1:$port" \
    --log.level=warn >"$work/cost.out" 2>"$work/cost.err" &
  daemon=$!
  for _ in $(seq 300); do curl -sf "127.0.0.1:$port/-/ready" >/dev/null && break; sleep 0.2; done
  sleep 30 # past start-up
  ticks=$(getconf CLK_TCK)
  cpu() { awk '{print $14 + $15}' "/proc/$daemon/stat"; }
  c0=$(cpu); t0=$(date +%s.%N)
  curl -s "127.0.0.1:$port/metrics" >"$work/cost-first.prom"
  for _ in $(seq $((COST_SECS / 15))); do
    sleep 15
    curl -s "127.0.0.1:$port/metrics" >"$work/cost-last.prom"
  done
  c1=$(cpu); t1=$(date +%s.%N)
  kib() { awk -v k="$1:" '$1 == k {print $2}' "/proc/$daemon/status"; }
  rss=$(kib VmRSS)
  hwm=$(kib VmHWM)
  # Then a 20 s broker stall (SIGSTOP): records pile up in the producer
  # (up to buffer.memory); the memory must go back once Kafka answers again.
  jvm=
  for f in /proc/[0-9]*/stat; do # the broker JVM: the child of kafka-cluster
    read -r line <"$f" 2>/dev/null || continue
    read -r _ ppid _ <<<"${line##*) }"
    [ "$ppid" = "$cluster" ] && { jvm=$(basename "$(dirname "$f")"); break; }
  done
  [ -n "$jvm" ] || { log "the broker's JVM is not a child of $cluster"; exit 1; }
  kill -STOP "$jvm"; sleep 20; kill -CONT "$jvm"
  sleep 60
  stall_hwm=$(kib VmHWM)
  stall_rss=$(kib VmRSS)
  produced() { awk '$1 ~ /^kafka_bench_produced_records_total/ {s+=$2} END {print s+0}' "$1"; }
  rate=$(calc "($(produced "$work/cost-last.prom") - $(produced "$work/cost-first.prom")) / ($t1 - $t0)")
  kill -TERM "$daemon"; wait "$daemon" || true; daemon=
  say ""
  say "### Always-on cost: exporter daemon, one probe at 1,000 rec/s x 1 KiB, scraped every 15 s"
  say ""
  say "| seconds | produced rec/s | CPU (fraction of one core) | RSS MiB (end) | peak RSS MiB | peak RSS MiB, 20 s broker stall | RSS MiB 60 s after it |"
  say "|---:|---:|---:|---:|---:|---:|---:|"
  say "$(printf '| %.0f | %.1f | %.4f | %.1f | %.1f | %.1f | %.1f |' "$(calc "$t1 - $t0")" "$rate" \
    "$(calc "($c1 - $c0) / $ticks / ($t1 - $t0)")" "$(calc "$rss / 1024")" "$(calc "$hwm / 1024")" \
    "$(calc "$stall_hwm / 1024")" "$(calc "$stall_rss / 1024")")"
fi

say ""
say "Machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(free -g | awk '/^Mem:/ {print $2}') GiB RAM, $(uname -sr);" \
  "$(java -version 2>&1 | head -1); $(go version | cut -d' ' -f3); Kafka $(scripts/kafka.sh version), 1 broker on 127.0.0.1, $PARTITIONS partitions, RF 1."
log "report: $report"
