#!/usr/bin/env bash
# govulncheck for the suite's and the release's vulnerability gate, built from
# its Go module once per version, reading an offline vulnerability database
# built from the golang.org/x/vulndb Go module (nothing is downloaded but Go
# modules; no request goes to vuln.go.dev). This is the single place where the
# govulncheck and the database versions are pinned: a newer database is a
# change of VULNDB_VERSION here.
#
#   scripts/govulncheck.sh path       ensure govulncheck is built, print its path
#   scripts/govulncheck.sh db         ensure the database is built, print its folder
#   scripts/govulncheck.sh ARGS...    run govulncheck -db file://DB ARGS...
#
# In text mode (the default) a reachable vulnerability is printed and fails the
# run (exit 3); -format json, sarif or openvex write a report and exit 0. In
# source mode govulncheck analyses the code with the go command it finds: the
# toolchain of go.mod's go line (GOTOOLCHAIN, from scripts/go-env.sh), whose
# standard library is the one checked.
#
# Cache: ${KAFKA_BENCH_CACHE:-$HOME/.cache/kafka_bench_exporter}/$GOTOOLCHAIN/
#   govulncheck-$GOVULNCHECK_VERSION/govulncheck
#   vulndb-$VULNDB_VERSION/indexdb    the database builder
#   vulndb-$VULNDB_VERSION/db/        the database
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/go-env.sh" # GOTOOLCHAIN=go<go.mod's go line>, GO_TOOLS_CACHE

GOVULNCHECK_VERSION=v1.9.0
VULNDB_VERSION=v0.0.0-20261105234957-e22db6528018

scripts=$(dirname "$0")
VULNCHECK_DIR="$GO_TOOLS_CACHE/govulncheck-$GOVULNCHECK_VERSION"
VULNCHECK="$VULNCHECK_DIR/govulncheck"
VULNDB_DIR="$GO_TOOLS_CACHE/vulndb-$VULNDB_VERSION"
DB="$VULNDB_DIR/db"

die() {
	echo "govulncheck.sh: $*" >&2
	exit 1
}

build_govulncheck() {
	[ -x "$VULNCHECK" ] ||
		"$scripts/go-tool.sh" "$VULNCHECK_DIR" govulncheck "golang.org/x/vuln/cmd/govulncheck@$GOVULNCHECK_VERSION"
}

# The database in the format govulncheck reads (index/ and ID/), indexed
# from the OSV entries of the vulndb module's data/osv.
build_db() {
	[ -f "$DB/index/db.json" ] && return 0
	"$scripts/go-tool.sh" "$VULNDB_DIR" indexdb "golang.org/x/vulndb/cmd/indexdb@$VULNDB_VERSION"
	local mod osv tmp
	mod=$(cd "$VULNDB_DIR" && GOWORK=off go mod download -json "golang.org/x/vulndb@$VULNDB_VERSION" |
		sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
	osv=$mod/data/osv
	[ -d "$osv" ] || die "golang.org/x/vulndb@$VULNDB_VERSION: no data/osv in \"$mod\""
	echo "govulncheck.sh: indexing the vulnerability database golang.org/x/vulndb@$VULNDB_VERSION (once)" >&2
	tmp=$(mktemp -d "$VULNDB_DIR/db-build.XXXXXX")
	# Renamed into place, so a concurrent run never reads half a database.
	if ! "$VULNDB_DIR/indexdb" -vulns "$osv" -out "$tmp/db" >&2; then
		rm -rf "$tmp"
		die "indexdb failed on $osv"
	fi
	mv -T "$tmp/db" "$DB" 2>/dev/null || [ -f "$DB/index/db.json" ] || die "cannot move the database to $DB"
	rm -rf "$tmp"
}

case "${1:-}" in
path)
	build_govulncheck
	echo "$VULNCHECK"
	exit 0
	;;
db)
	build_db
	echo "$DB"
	exit 0
	;;
esac

build_govulncheck
build_db
rc=0
"$VULNCHECK" -db "file://$DB" "$@" || rc=$?
if [ "$rc" = 3 ]; then
	echo "govulncheck.sh: reachable vulnerabilities (above) in govulncheck $*" >&2
fi
exit "$rc"
