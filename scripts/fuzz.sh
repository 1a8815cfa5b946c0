#!/usr/bin/env bash
# Runs every fuzz target for a while (default 60 s each; not part of the
# test suite, whose `go test` runs the committed seed corpora only).
# Usage: scripts/fuzz.sh [seconds-per-target]
# A failing input is written to the package's testdata/fuzz/<Target>/ by Go:
# commit it with the fix, so it stays a regression test.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/go-env.sh" # GOTOOLCHAIN=go<go.mod's go line>, GO_TOOLS_CACHE
cd "$(dirname "$0")/.."
secs=${1:-60}
targets=(
  "./config FuzzParse"
  "./probes/payload FuzzDecode"
  "./probes FuzzConsumerRecord"
  "./probes/pacer FuzzPacer"
)
# Every Fuzz function in the tree must be listed above.
found=$(grep -rhoE '^func Fuzz[A-Za-z0-9_]+' --include='*_test.go' . | sed 's/^func //' | sort)
listed=$(printf '%s\n' "${targets[@]}" | awk '{print $2}' | sort)
if [ "$found" != "$listed" ]; then
  echo "fuzz targets in the tree and in $0 differ:" >&2
  diff <(echo "$listed") <(echo "$found") >&2 || true
  exit 1
fi
for t in "${targets[@]}"; do
  read -r pkg name <<<"$t"
  echo "== $name ($pkg), ${secs}s"
  go test "$pkg" -run '^$' -fuzz "^${name}\$" -fuzztime "${secs}s"
done
