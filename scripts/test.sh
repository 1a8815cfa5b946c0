#!/usr/bin/env bash
# The whole test suite, on a fresh machine: installs what the tests need
# (Prometheus 2 for one smoke test, promtool and node_exporter from Debian,
# Chromium for the browser tests, Apache Kafka jars from Maven Central,
# Prometheus 3, the Helm and kustomize CLIs built from their Go modules),
# checks formatting, vet, golangci-lint and govulncheck (no known vulnerability
# reachable), then runs every test — unit, embedded-cluster,
# real-Kafka integration and fault tests, real-Prometheus end-to-end tests.
# Nothing skips: KAFKA_BENCH_INTEGRATION=1 turns a missing prerequisite into
# a failure.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/go-env.sh" # GOTOOLCHAIN=go<go.mod's go line>, GO_TOOLS_CACHE
cd "$(dirname "$0")/.."
start=$(date +%s)

# Prometheus 3, the Helm, kustomize and golangci-lint CLIs and the release
# tools compile from their Go modules (once, then cached) while apt-get and
# Maven download: CPU beside network and disk, which on a fresh machine
# saves minutes. Prometheus first: it is the longest of the builds.
tools_log=$(mktemp)
vuln_log=$(mktemp)
trap 'rm -f "$tools_log" "$vuln_log"' EXIT
(scripts/prometheus.sh path && scripts/helm.sh path && scripts/kustomize.sh path && scripts/golangci-lint.sh path && scripts/release.sh tools) >"$tools_log" 2>&1 &
tools_pid=$!
# Beside them govulncheck and its offline database: the golang.org/x/vulndb
# module's download overlaps the compiling, its indexing the downloads.
(scripts/govulncheck.sh path && scripts/govulncheck.sh db) >"$vuln_log" 2>&1 &
vuln_pid=$!

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

echo "== Apache Kafka jars"
scripts/kafka.sh lib
scripts/kafka.sh mirror-lib # MirrorMaker 2, for integration/replication_test.go

echo "== Prometheus 3, the Helm, kustomize, golangci-lint and govulncheck CLIs, the vulnerability database (built once from their Go modules, then cached)"
if ! wait "$tools_pid"; then
  cat "$tools_log" >&2
  echo "building Prometheus 3, the Helm or kustomize CLI or the release tools failed" >&2
  exit 1
fi
cat "$tools_log"
if ! wait "$vuln_pid"; then
  cat "$vuln_log" >&2
  echo "building govulncheck or its vulnerability database failed" >&2
  exit 1
fi
cat "$vuln_log"

echo "== gofmt, go vet"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change: $unformatted" >&2
  exit 1
fi
go vet ./...
# deploy/validate is a module of its own (k8s.io/api stays out of go.mod).
go vet -C deploy/validate ./...
# deploy/release (the release's archiver and image builder) likewise keeps
# go-containerregistry out of go.mod; deploy/release_test.go runs it.
go vet -C deploy/release ./...

echo "== golangci-lint"
# Built with the CLIs above (scripts/golangci-lint.sh); the rules are in
# .golangci.yml. Each module is linted from its own root.
lint=$(scripts/golangci-lint.sh path)
"$lint" run ./...
(cd deploy/validate && "$lint" run --config ../../.golangci.yml ./...)
(cd deploy/release && "$lint" run --config ../../.golangci.yml ./...)

echo "== govulncheck"
# Any known vulnerability that the code of a module reaches, in a required
# module or in the standard library of the pinned toolchain, fails the suite
# (scripts/govulncheck.sh: the offline database of golang.org/x/vulndb).
scripts/govulncheck.sh ./...
scripts/govulncheck.sh -C deploy/validate ./...
scripts/govulncheck.sh -C deploy/release ./...

echo "== the exporter binary"
# Built once for every test that runs it as a process (internal/testbin);
# the version comes from git, as in the tests that build it themselves.
bin_dir=$(mktemp -d)
trap 'rm -f "$tools_log" "$vuln_log"; rm -rf "$bin_dir"' EXIT
env -u VERSION -u REVISION -u BRANCH -u BUILD_USER -u BUILD_DATE -u SOURCE_DATE_EPOCH \
  scripts/build.sh "$bin_dir/kafka_bench_exporter"
export KAFKA_BENCH_BINARY="$bin_dir/kafka_bench_exporter"

echo "== go test"
# -p 1: the machine has 2 cores and the integration packages start real JVM
# brokers; running them one package at a time keeps timings honest.
KAFKA_BENCH_INTEGRATION=1 go test -p 1 -count=1 -timeout 40m "$@" ./...
go test -C deploy/validate -count=1 ./...

echo "== suite took $(( $(date +%s) - start )) s"
