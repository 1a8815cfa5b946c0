# Sourced by the benchmark scripts (bash): one real Kafka broker from
# internal/kafkatest in the background, jars pinned by scripts/kafka.sh.
#
#   start_cluster DIR [kafka-cluster flags...]   build and start it; sets cluster (pid) and BS (bootstrap)
#   stop_cluster                                 stop it and wait
#
# Logs go to DIR/cluster.out and DIR/cluster.err.

start_cluster() {
  local dir=$1
  shift
  go build -o "$dir/kafka-cluster" ./internal/kafkatest/cmd/kafka-cluster
  scripts/kafka.sh lib >/dev/null
  "$dir/kafka-cluster" -nodes 1 -start-timeout 10m "$@" >"$dir/cluster.out" 2>"$dir/cluster.err" &
  cluster=$!
  for _ in $(seq 1200); do # up to 10 min: a loaded machine starts a JVM slowly
    grep -q '^BOOTSTRAP=' "$dir/cluster.out" 2>/dev/null && break
    kill -0 "$cluster" 2>/dev/null || { cat "$dir/cluster.err" >&2; return 1; }
    sleep 0.5
  done
  BS=$(sed -n 's/^BOOTSTRAP=//p' "$dir/cluster.out")
  [ -n "$BS" ] || { echo "cluster did not start" >&2; cat "$dir/cluster.err" >&2; return 1; }
}

stop_cluster() {
  [ -z "${cluster:-}" ] && return 0
  kill -INT "$cluster" 2>/dev/null || true
  wait "$cluster" 2>/dev/null || true
}
