# Sourced by every script that runs the go command. The Go toolchain of every
# build, test and tool here is go.mod's `go` line, exported as GOTOOLCHAIN: a
# machine whose own Go is another version (a fresh one starts on 1.26.8, which
# carries known vulnerabilities) has the go command fetch exactly that one from
# the Go module proxy (about 10 s, once) and use it. Tools built from their Go
# modules are cached per toolchain (GO_TOOLS_CACHE), so nothing built with
# another Go survives a toolchain change.
_go_mod="$(dirname "${BASH_SOURCE[0]}")/../go.mod"
_go_version=$(sed -n 's/^go \([0-9][0-9.]*\)$/\1/p' "$_go_mod")
[ -n "$_go_version" ] || {
	echo "go-env.sh: $_go_mod has no go line" >&2
	exit 1
}
export GOTOOLCHAIN="go$_go_version"
GO_TOOLS_CACHE="${KAFKA_BENCH_CACHE:-$HOME/.cache/kafka_bench_exporter}/$GOTOOLCHAIN"
unset _go_mod _go_version
