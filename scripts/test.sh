#!/usr/bin/env bash
# The whole test suite, on a fresh machine: installs what the tests need
# (Prometheus 2 for one smoke test, promtool and node_exporter from Debian,
# Chromium for the browser tests, Apache Kafka jars from Maven Central,
# Prometheus 3, the Helm and kustomize CLIs built from their Go modules),
# checks formatting, vet, golangci-lint and known vulnerabilities
# (govulncheck), then runs every test — unit, embedded-cluster,
# real-Kafka integration and fault tests, real-Prometheus end-to-end tests.
# Nothing skips: KAFKA_BENCH_INTEGRATION=1 turns a missing prerequisite into
# a failure.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/go-env.sh" # GOTOOLCHAIN=go<go.mod's go line>, GO_TOOLS_CACHE
cd "$(dirname "$0")/.."
start=$(date +%s)

# Phase timing: each step below is marked "begin NAME" and "end NAME" (unix
# nanoseconds) in $marks; at the end internal/suitetime prints the table of
# phases (background ones overlap the others), test packages and the
# slowest tests (with -v) from the go test output kept in $test_logs.
marks=$(mktemp)
test_logs=$(mktemp -d)
phase_begin() { printf 'begin\t%s\t%s\n' "$1" "$(date +%s%N)" >>"$marks"; }
phase_end() { printf 'end\t%s\t%s\n' "$1" "$(date +%s%N)" >>"$marks"; }
cleanup() {
  # A step that fails (lint, say) ends the script while the integration
  # tests may still run in the background: they end with it.
  [ -z "${integration_pid:-}" ] || kill -- "-$integration_pid" 2>/dev/null || kill "$integration_pid" 2>/dev/null || true
  rm -rf "$marks" "$test_logs" "${tools_log:-}" "${checks_log:-}" "${jars_log:-}" "${bin_log:-}" "${bin_dir:-}"
}
trap cleanup EXIT

# The exporter binary builds first, while apt-get and Maven download: it is
# all that go test ./integration, the longest package, needs besides the
# Kafka jars, so the sooner it is there the sooner the suite can end.
# Built once for every test that runs it as a process (internal/testbin);
# the version comes from git, as in the tests that build it themselves.
bin_dir=$(mktemp -d)
export KAFKA_BENCH_BINARY="$bin_dir/kafka_bench_exporter"
bin_log=$(mktemp)
(
  phase_begin "exporter binary (background)"
  rc=0
  env -u VERSION -u REVISION -u BRANCH -u BUILD_USER -u BUILD_DATE -u SOURCE_DATE_EPOCH \
    scripts/build.sh "$KAFKA_BENCH_BINARY" || rc=$?
  phase_end "exporter binary (background)"
  exit $rc
) >"$bin_log" 2>&1 &
bin_pid=$!
# after_binary waits for the binary's build to end: the tool builds start
# then, so that they do not take the cores from it.
after_binary() { while kill -0 "$bin_pid" 2>/dev/null; do sleep 1; done; }
# The builds and checks beside go test ./integration (the suite's critical
# path) run at a lower CPU priority: they fill the cores that its waiting
# leaves idle, and take none from its compile and its brokers.
low_priority() { nice -n 10 "$@"; }

# Prometheus 3, the Helm and kustomize CLIs and the release tools compile
# from their Go modules (once, then cached) after the binary, while apt-get
# and Maven may still download: CPU beside network and disk, which on a
# fresh machine saves minutes. Only the tests need them.
tools_log=$(mktemp)
(
  after_binary
  phase_begin "tool builds (background)"
  rc=0
  { low_priority scripts/prometheus.sh path && low_priority scripts/helm.sh path && low_priority scripts/kustomize.sh path && low_priority scripts/release.sh tools; } || rc=$?
  phase_end "tool builds (background)"
  exit $rc
) >"$tools_log" 2>&1 &
tools_pid=$!

# The checks (go vet, golangci-lint, govulncheck) are a lane of their own
# beside the tests, after the binary: golangci-lint and govulncheck with its
# offline database (golang.org/x/vulndb, whose download overlaps the
# compiling) build while go vet runs, and each check starts once its tool is
# there. With empty caches the builds take minutes; before, the other
# packages' tests waited for them.
checks_log=$(mktemp)
(
  after_binary
  phase_begin "golangci-lint build (background)"
  ( rc=0; low_priority scripts/golangci-lint.sh path >/dev/null || rc=$?; phase_end "golangci-lint build (background)"; exit $rc ) &
  lint_pid=$!
  phase_begin "govulncheck and its database (background)"
  ( rc=0; { low_priority scripts/govulncheck.sh path && low_priority scripts/govulncheck.sh db; } >/dev/null || rc=$?; phase_end "govulncheck and its database (background)"; exit $rc ) &
  vuln_pid=$!

  phase_begin "go vet (checks)"
  low_priority go vet ./...
  # deploy/validate is a module of its own (k8s.io/api stays out of go.mod).
  low_priority go vet -C deploy/validate ./...
  # deploy/release (the release's archiver and image builder) likewise keeps
  # go-containerregistry out of go.mod; deploy/release_test.go runs it.
  low_priority go vet -C deploy/release ./...
  phase_end "go vet (checks)"

  phase_begin "release platforms build (checks)"
  # The release's binary compiles for every operating system of the release
  # (a syscall that only Unix has, say), built as scripts/release.sh builds
  # it; the list is scripts/release.sh's own. One platform per operating
  # system, the first the list names: what differs between platforms in
  # this tree is files for one operating system (restart_unix.go and
  # restart_other.go), never for one architecture (a file named _amd64.go or
  # _arm64.go, or a goarch build constraint, fails the step), and each
  # cross-compilation of every module costs minutes of a core that the
  # integration tests beside it want. Linux's is the binary built first.
  # (The test kits of internal/ run on Linux only.)
  arch_files=$({ git ls-files '*.go' | grep -E '_(amd64|arm64|386|arm)(_test)?\.go$'; git ls-files -z '*.go' | xargs -0 grep -lE '^//go:build.*\b(amd64|arm64|386|arm)\b'; } || true)
  if [ -n "$arch_files" ]; then
    echo "files for one architecture, which one build per operating system does not compile for the others:" $arch_files >&2
    exit 1
  fi
  built_os=" linux "
  for target in $(scripts/release.sh targets); do
    case "$built_os" in *" ${target%/*} "*) continue ;; esac
    built_os="$built_os${target%/*} "
    GOOS=${target%/*} GOARCH=${target#*/} low_priority scripts/build.sh /dev/null
  done
  phase_end "release platforms build (checks)"

  phase_begin "waiting for the golangci-lint build (checks)"
  wait "$lint_pid" || { echo "building golangci-lint failed" >&2; exit 1; }
  phase_end "waiting for the golangci-lint build (checks)"
  phase_begin "golangci-lint (checks)"
  # The rules are in .golangci.yml. Each module is linted from its own root.
  # --allow-serial-runners: another golangci-lint on the machine (another
  # checkout) is waited for, not an error.
  lint=$(scripts/golangci-lint.sh path)
  low_priority "$lint" run --allow-serial-runners ./...
  (cd deploy/validate && low_priority "$lint" run --allow-serial-runners --config ../../.golangci.yml ./...)
  (cd deploy/release && low_priority "$lint" run --allow-serial-runners --config ../../.golangci.yml ./...)
  phase_end "golangci-lint (checks)"

  phase_begin "waiting for govulncheck and its database (checks)"
  wait "$vuln_pid" || { echo "building govulncheck or its vulnerability database failed" >&2; exit 1; }
  phase_end "waiting for govulncheck and its database (checks)"
  phase_begin "govulncheck (checks)"
  # Any known vulnerability that the code of a module reaches, in a required
  # module or in the standard library of the pinned toolchain, fails the
  # suite (scripts/govulncheck.sh: the offline database of golang.org/x/vulndb).
  low_priority scripts/govulncheck.sh ./...
  low_priority scripts/govulncheck.sh -C deploy/validate ./...
  low_priority scripts/govulncheck.sh -C deploy/release ./...
  phase_end "govulncheck (checks)"
) >"$checks_log" 2>&1 &
checks_pid=$!

need_apt=()
command -v prometheus >/dev/null 2>&1 && command -v promtool >/dev/null 2>&1 || need_apt+=(prometheus)
command -v java >/dev/null 2>&1 || need_apt+=(openjdk-17-jre-headless)
command -v mvn >/dev/null 2>&1 || need_apt+=(maven)
# Headless browser tests of the HTML report and the landing page.
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium fonts-dejavu-core)
command -v prometheus-node-exporter >/dev/null 2>&1 || need_apt+=(prometheus-node-exporter)
# A real MIT Kerberos KDC for the GSSAPI test (integration/auth_kerberos_test.go).
command -v krb5kdc >/dev/null 2>&1 || need_apt+=(krb5-kdc krb5-admin-server)
# The release test runs the built image's root filesystem under an OCI runtime.
command -v runc >/dev/null 2>&1 || need_apt+=(runc)
kafka_jars() {
  phase_begin "Kafka jars (Maven)"
  scripts/kafka.sh lib
  scripts/kafka.sh mirror-lib # MirrorMaker 2, for integration/replication_test.go
  phase_end "Kafka jars (Maven)"
}
# Maven downloads the Kafka jars beside apt-get (both wait on the network)
# when Java and Maven are installed already; otherwise after apt-get
# installs them.
jars_pid=
if command -v java >/dev/null 2>&1 && command -v mvn >/dev/null 2>&1; then
  echo "== Apache Kafka jars (background)"
  jars_log=$(mktemp)
  kafka_jars >"$jars_log" 2>&1 &
  jars_pid=$!
fi
phase_begin "apt-get installs"
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "== installing ${need_apt[*]} (apt-get)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
  # Debian starts the packaged Prometheus and node_exporter (on :9090 and
  # :9100) where systemd runs; the tests start their own on free ports.
  if command -v systemctl >/dev/null 2>&1; then
    for unit in prometheus prometheus-node-exporter; do
      if systemctl is-active --quiet "$unit" 2>/dev/null || systemctl is-enabled --quiet "$unit" 2>/dev/null; then
        systemctl disable --now "$unit" >/dev/null 2>&1 || true
      fi
    done
  fi
fi
phase_end "apt-get installs"

if [ -n "$jars_pid" ]; then
  phase_begin "waiting for the Kafka jars"
  if ! wait "$jars_pid"; then
    cat "$jars_log" >&2
    echo "downloading the Kafka jars failed" >&2
    exit 1
  fi
  cat "$jars_log"
  phase_end "waiting for the Kafka jars"
else
  echo "== Apache Kafka jars"
  kafka_jars
fi

echo "== the exporter binary"
phase_begin "waiting for the exporter binary"
if ! wait "$bin_pid"; then
  cat "$bin_log" >&2
  echo "building the exporter binary failed" >&2
  exit 1
fi
cat "$bin_log"
phase_end "waiting for the exporter binary"

echo "== go test ./integration (background)"
# integration/ (real brokers; most of its time is waiting on faults,
# windows and grace periods) is the longest package: it starts as soon as
# the brokers' jars and the binary are there, in the background, and its
# waiting tests run together (4 at a time, the long ones first: waiting in
# integration/main_test.go; -parallel 64 only keeps go test from ordering
# them), while the other packages run one at a time beside it and the
# checks at the lower priority. So at most two packages run at once on the
# 2 cores; the integration tests whose assertions are about
# rates and latencies run alone inside their package. set -m gives it a
# process group of its own, which cleanup ends if a later step fails.
set -m
phase_begin "go test ./integration (background)"
(
  rc=0
  KAFKA_BENCH_INTEGRATION=1 go test -count=1 -parallel 64 -timeout 40m "$@" ./integration >"$test_logs/integration.out" 2>&1 || rc=$?
  phase_end "go test ./integration (background)"
  exit $rc
) </dev/null &
integration_pid=$!
set +m

echo "== gofmt"
phase_begin "gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change: $unformatted" >&2
  exit 1
fi
phase_end "gofmt"

echo "== go test, the other packages"
phase_begin "go test, the other packages"
# The packages whose tests wait for a background tool build run last, in the
# order the tools are built: those with internal/promtest (Prometheus 3, the
# first build), then deploy (Helm, kustomize, the release tools). Run in
# go list's order, alerts came first and its wait for Prometheus held up
# every package behind it for minutes with empty caches.
mapfile -t packages < <(go list -f '{{.ImportPath}}{{range .TestImports}} {{.}}{{end}}{{range .XTestImports}} {{.}}{{end}}' ./... |
  awk '$1 ~ /\/integration$/ { next }
       $1 ~ /\/deploy$/ { last = last $1 "\n"; next }
       / [^ ]*\/internal\/promtest( |$)/ { mid = mid $1 "\n"; next }
       { print $1 }
       END { printf "%s%s", mid, last }')
rc=0
# Right after gofmt, not after the checks: with empty caches the checks'
# tools take minutes to build. At the normal priority: at the lower one, with
# empty caches, they ended three minutes after go test ./integration, and a
# bench test's producer, starved, gave up records.
KAFKA_BENCH_INTEGRATION=1 go test -p 1 -count=1 -timeout 40m "$@" "${packages[@]}" 2>&1 | tee "$test_logs/packages.out" || rc=$?
go test -C deploy/validate -count=1 ./... 2>&1 | tee "$test_logs/deploy-validate.out" || rc=$?
phase_end "go test, the other packages"

# The producer hands its records and their buffers to franz-go's goroutines
# and reuses them once a promise has run: the race detector checks that no
# goroutine still reads one (a Context read after its promise was such a
# race). On the in-process cluster, beside go test ./integration's waits.
# Its log is not a .out: the package table lists the plain runs.
echo "== go test -race, the probes"
phase_begin "go test -race, the probes"
go test -race -count=1 -timeout 20m ./probes/ ./probes/payload/ 2>&1 | tee "$test_logs/race.log" || rc=$?
phase_end "go test -race, the probes"

# await_lane PHASE PID LOG FAILURE waits for a background lane, prints its
# log and, if it failed, FAILURE; it returns the lane's status.
await_lane() {
  local lane_rc=0
  phase_begin "$1"
  wait "$2" || lane_rc=$?
  phase_end "$1"
  cat "$3"
  [ "$lane_rc" = 0 ] || echo "$4" >&2
  return $lane_rc
}

integration_rc=0
await_lane "waiting for go test ./integration" "$integration_pid" "$test_logs/integration.out" \
  "go test ./integration failed (above)" || integration_rc=$?

echo "== go vet, golangci-lint, govulncheck"
checks_rc=0
await_lane "waiting for the checks" "$checks_pid" "$checks_log" "go vet, golangci-lint or govulncheck failed (above)" || checks_rc=$?

echo "== Prometheus 3, Helm and kustomize CLIs (built once from their Go modules, then cached)"
# The tests did not wait for these builds: a test that needs a tool calls
# its script, which waits for the background build of it (scripts/go-tool.sh
# holds a lock per tool) while the tests that need none go on.
tools_rc=0
await_lane "waiting for the tool builds" "$tools_pid" "$tools_log" \
  "building Prometheus 3, the Helm or kustomize CLI or the release tools failed" || tools_rc=$?

echo "== where the time went"
go run ./internal/suitetime -marks "$marks" "$test_logs"/*.out || true
echo "== suite took $(( $(date +%s) - start )) s"
[ "$rc" = 0 ] && [ "$integration_rc" = 0 ] && [ "$checks_rc" = 0 ] && [ "$tools_rc" = 0 ]
