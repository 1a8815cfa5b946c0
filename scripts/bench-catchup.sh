#!/usr/bin/env bash
# What catch-up reads cost the steady probe of the same topic: a one-node
# Kafka from internal/kafkatest, a topic filled first (the backlog), then the
# exporter with a probe whose catch-up window reads from the log's start,
# cold (the page cache of the older segments dropped before each read). It
# prints, per daemon run, the steady end-to-end p50 / p99 / p99.9 in the
# seconds with a catch-up read and in those without, reads capped at
# -cap-mib and uncapped, rounds alternated. The measuring is Go's:
# tools/bench-compare catchup, which this runs (-h lists its flags).
# Usage: scripts/bench-catchup.sh [-rounds 2] [-reads 4] [-cap-mib 50] ...
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/go-env.sh" # GOTOOLCHAIN=go<go.mod's go line>, GO_TOOLS_CACHE
cd "$(dirname "$0")/.."
exec go run ./tools/bench-compare catchup "$@"
