#!/usr/bin/env bash
# Real Apache Kafka from Maven Central jars, for integration tests, fault tests
# and benchmarks. This is the single place where the Kafka version is pinned:
# 4.4.0, or KAFKA_VERSION from the environment (for instance 3.9.1 or 4.1.1,
# which scripts/release.sh checks the exporter against).
#
#   scripts/kafka.sh lib                    ensure the jars are cached, print the lib dir
#   scripts/kafka.sh log4j                  ensure the jars are cached, print the log4j2 config path
#   scripts/kafka.sh java-class CLASS ARGS  run a class from the lib dir with that log config
#   scripts/kafka.sh version                print the Kafka version in use
#   scripts/kafka.sh mirror-lib             ensure the MirrorMaker 2 jars are cached, print their lib dir
#                                           (MirrorMaker 2 at KAFKA_MIRROR_VERSION, see MIRROR_VERSION below)
#
# Cache: ${KAFKA_BENCH_CACHE:-$HOME/.cache/kafka_bench_exporter}/kafka-$KAFKA_VERSION/{lib,log4j2.properties}
# and, for cross-cluster tests, mirror-lib/ (connect-mirror with its runtime dependencies: a classpath of
# its own, so the broker's lib/ stays as it is).
# Brokers are configured, formatted and started by the Go package internal/kafkatest
# (go run ./internal/kafkatest/cmd/kafka-cluster), not here; it also keeps AppCDS
# archives (faster JVM start) in kafka-$KAFKA_VERSION/cds/.
# Extra JVM flags for java-class: KAFKA_BENCH_JAVA_OPTS (word-split), e.g. "-Xmx1g".
set -euo pipefail

KAFKA_DEFAULT_VERSION=4.4.0
KAFKA_VERSION=${KAFKA_VERSION:-$KAFKA_DEFAULT_VERSION}
[[ $KAFKA_VERSION =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || {
	echo "kafka.sh: KAFKA_VERSION = \"$KAFKA_VERSION\": want a release version such as $KAFKA_DEFAULT_VERSION" >&2
	exit 2
}
# log4j_version V: the log4j that Kafka V's tarball ships (the version its
# kafka-server pom asks for): 2.24.3 up to 4.1, 2.25.3 in 4.2, 2.25.4 in 4.3,
# 2.25.5 in 4.4. slf4j-api is 1.7.x in all of them (1.7.36 in 4.4.0), so the
# binding must be log4j-slf4j-impl (log4j-slf4j2-impl would leave a NOP logger).
log4j_version() {
	case $1 in
	4.2.*) echo 2.25.3 ;;
	4.3.*) echo 2.25.4 ;;
	4.4.*) echo 2.25.5 ;;
	*) echo 2.24.3 ;;
	esac
}
LOG4J_VERSION=$(log4j_version "$KAFKA_VERSION")
# MirrorMaker 2 (connect-mirror) at the broker's version where Maven Central
# has it; connect-mirror 4.4.0 is not published there, so 4.4.x brokers get
# MirrorMaker 2 4.3.0 (it talks to the brokers through the client protocol
# only). KAFKA_MIRROR_VERSION overrides.
case $KAFKA_VERSION in
4.4.*) MIRROR_DEFAULT_VERSION=4.3.0 ;;
*) MIRROR_DEFAULT_VERSION=$KAFKA_VERSION ;;
esac
MIRROR_VERSION=${KAFKA_MIRROR_VERSION:-$MIRROR_DEFAULT_VERSION}
[[ $MIRROR_VERSION =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || {
	echo "kafka.sh: KAFKA_MIRROR_VERSION = \"$MIRROR_VERSION\": want a release version such as $MIRROR_DEFAULT_VERSION" >&2
	exit 2
}
MIRROR_LOG4J_VERSION=$(log4j_version "$MIRROR_VERSION")
DEPENDENCY_PLUGIN=org.apache.maven.plugins:maven-dependency-plugin:3.8.1

CACHE_ROOT="${KAFKA_BENCH_CACHE:-$HOME/.cache/kafka_bench_exporter}"
KAFKA_HOME_DIR="$CACHE_ROOT/kafka-$KAFKA_VERSION"
LIB_DIR="$KAFKA_HOME_DIR/lib"
LOG4J_CONFIG="$KAFKA_HOME_DIR/log4j2.properties"
MIRROR_LIB_DIR="$KAFKA_HOME_DIR/mirror-lib"
# The marker lives inside lib/ and is written before lib/ is renamed into place,
# so lib/ either does not exist or is complete. Its content fingerprints the
# dependency set, so changing a version above re-resolves.
MARKER="$LIB_DIR/.complete"

die() {
	echo "kafka.sh: $*" >&2
	exit 1
}

check_tools() {
	local hint="install them with: apt-get install openjdk-17-jdk-headless maven"
	command -v java >/dev/null 2>&1 || die "java not found on PATH (Java 17+ is required); $hint"
	local ver major
	ver="$(java -version 2>&1 | sed -n 's/.*version "\([^"]*\)".*/\1/p' | head -n1)"
	[[ -n "$ver" ]] || die "cannot parse the output of 'java -version'; Java 17+ is required; $hint"
	major="${ver%%[.+-]*}"
	if [[ "$major" == 1 ]]; then # 1.8.0_x style
		major="$(echo "$ver" | cut -d. -f2)"
	fi
	[[ "$major" =~ ^[0-9]+$ && "$major" -ge 17 ]] ||
		die "java $ver found, but Kafka $KAFKA_VERSION needs Java 17+; $hint"
	command -v mvn >/dev/null 2>&1 || die "mvn (Maven) not found on PATH, it downloads the Kafka jars; $hint"
}

# Kafka 3.x brings its own slf4j binding (slf4j-reload4j); with two bindings
# slf4j picks either, so 3.x leaves it out and logs through log4j2 as 4.x does.
# Kafka 4.x's pom stays as it was (the cache fingerprint with it).
exclusions() {
	[[ $KAFKA_VERSION == 3.* ]] || return 0
	echo '<exclusions><exclusion><groupId>org.slf4j</groupId><artifactId>slf4j-reload4j</artifactId></exclusion></exclusions>'
}

pom() {
	local ex
	ex=$(exclusions)
	cat <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>kafka-bench</groupId>
  <artifactId>kafka-runtime</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId><version>$KAFKA_VERSION</version>$ex</dependency>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka-tools</artifactId><version>$KAFKA_VERSION</version>$ex</dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-slf4j-impl</artifactId><version>$LOG4J_VERSION</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-core</artifactId><version>$LOG4J_VERSION</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-api</artifactId><version>$LOG4J_VERSION</version></dependency>
  </dependencies>
</project>
EOF
}

# MirrorMaker 2 in dedicated mode (org.apache.kafka.connect.mirror.MirrorMaker)
# needs connect-mirror and connect-runtime, at MIRROR_VERSION.
mirror_pom() {
	cat <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>kafka-bench</groupId>
  <artifactId>kafka-mirror-runtime</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>connect-mirror</artifactId><version>$MIRROR_VERSION</version></dependency>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>connect-runtime</artifactId><version>$MIRROR_VERSION</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-slf4j-impl</artifactId><version>$MIRROR_LOG4J_VERSION</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-core</artifactId><version>$MIRROR_LOG4J_VERSION</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-api</artifactId><version>$MIRROR_LOG4J_VERSION</version></dependency>
  </dependencies>
</project>
EOF
}

log4j_config() {
	# Logs go to stderr so that tools such as ProducerPerformance keep a clean
	# stdout. WARN keeps broker logs small; KafkaRaftServer at INFO keeps the
	# "Kafka Server started" line that tells a node came up.
	cat <<'EOF'
status = warn
name = kafka-bench
appender.console.type = Console
appender.console.name = STDERR
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = warn
rootLogger.appenderRef.console.ref = STDERR
logger.raftserver.name = kafka.server.KafkaRaftServer
logger.raftserver.level = info
EOF
}

fingerprint() {
	{
		pom
		echo "$DEPENDENCY_PLUGIN"
	} | sha256sum | cut -d' ' -f1
}

mirror_fingerprint() {
	{
		mirror_pom
		echo "$DEPENDENCY_PLUGIN"
	} | sha256sum | cut -d' ' -f1
}

mirror_ok() {
	[[ -f "$MIRROR_LIB_DIR/.complete" && "$(cat "$MIRROR_LIB_DIR/.complete")" == "$(mirror_fingerprint)" ]]
}

# ensure_mirror_lib resolves the MirrorMaker 2 jars once, under the same lock
# and with the same all-or-nothing rename as lib/.
ensure_mirror_lib() {
	ensure_lib # the log4j2 config and the tool checks
	if mirror_ok; then
		return 0
	fi
	exec 9>"$KAFKA_HOME_DIR/.lock"
	flock 9
	if ! mirror_ok; then
		resolve mirror_pom "$MIRROR_LIB_DIR" "$(mirror_fingerprint)" "MirrorMaker 2" "$MIRROR_VERSION"
	fi
	flock -u 9
	exec 9>&-
}

cache_ok() {
	[[ -f "$MARKER" && "$(cat "$MARKER")" == "$(fingerprint)" && -f "$LOG4J_CONFIG" ]] &&
		[[ "$(cat "$LOG4J_CONFIG")" == "$(log4j_config)" ]]
}

ensure_lib() {
	check_tools
	# Fast path: no lock, no mvn.
	if cache_ok; then
		return 0
	fi
	mkdir -p "$KAFKA_HOME_DIR"
	# Serialize concurrent first runs (parallel test packages) on one lock.
	exec 9>"$KAFKA_HOME_DIR/.lock"
	flock 9
	if ! cache_ok; then
		if [[ ! -f "$MARKER" || "$(cat "$MARKER")" != "$(fingerprint)" ]]; then
			resolve pom "$LIB_DIR" "$(fingerprint)" Kafka
		fi
		local tmp
		tmp="$(mktemp "$KAFKA_HOME_DIR/.log4j2.XXXXXX")"
		log4j_config >"$tmp"
		chmod 644 "$tmp"
		mv -f "$tmp" "$LOG4J_CONFIG"
	fi
	flock -u 9
	exec 9>&-
}

# resolve POM_FUNC DIR FINGERPRINT LABEL copies the runtime dependencies of the
# pom that POM_FUNC prints into DIR, replacing DIR whole; the caller holds the lock.
resolve() {
	local pom_func="$1" dir="$2" print="$3" label="$4" version="${5:-$KAFKA_VERSION}" work start
	# We hold the lock: any .download.* left is from a run that was SIGKILLed.
	rm -rf "$KAFKA_HOME_DIR"/.download.*
	work="$(mktemp -d "$KAFKA_HOME_DIR/.download.XXXXXX")"
	# On any failure or interrupt the partial download is removed; $dir is untouched.
	trap 'rm -rf "$work"' EXIT
	start=$SECONDS
	echo "kafka.sh: resolving $label $version jars from Maven Central into $dir ..." >&2
	"$pom_func" >"$work/pom.xml"
	# mvn writes to stdout; keep stdout for the path we print. Debian's mvn
	# 3.8.7 prints bare colour resets even in batch mode: strip them.
	if ! mvn -B -q -f "$work/pom.xml" "$DEPENDENCY_PLUGIN:copy-dependencies" \
		-DoutputDirectory="$work/lib" -DincludeScope=runtime 2>&1 |
		sed -e $'s/\x1b\\[[0-9;]*m//g' -e '/^$/d' >&2; then
		die "mvn failed to resolve $label $version jars (see its output above)"
	fi
	local n
	n="$(find "$work/lib" -name '*.jar' | wc -l)"
	[[ "$n" -gt 0 ]] || die "mvn copied no jars into $work/lib"
	# Without the binding the JVM would run with slf4j's silent NOP logger.
	compgen -G "$work/lib/log4j-slf4j-impl-*.jar" >/dev/null || die "log4j-slf4j-impl missing from resolved jars"
	# log4j-slf4j-impl binds slf4j-api 1.x only; with 2.x the binding is
	# log4j-slf4j2-impl, and a wrong one is a silent NOP logger too.
	compgen -G "$work/lib/slf4j-api-1.*.jar" >/dev/null ||
		die "$label $version resolves slf4j-api $(cd "$work/lib" && echo slf4j-api-*.jar): log4j-slf4j-impl binds 1.x only (2.x needs log4j-slf4j2-impl)"
	echo "$print" >"$work/lib/.complete"
	rm -rf "$dir"
	mv -T "$work/lib" "$dir"
	rm -rf "$work"
	trap - EXIT
	echo "kafka.sh: $n jars ($(du -sh "$dir" | cut -f1)) in $((SECONDS - start))s" >&2
}

cmd="${1:-}"
case "$cmd" in
lib)
	ensure_lib
	echo "$LIB_DIR"
	;;
log4j)
	ensure_lib
	echo "$LOG4J_CONFIG"
	;;
version)
	echo "$KAFKA_VERSION"
	;;
mirror-lib)
	ensure_mirror_lib
	echo "$MIRROR_LIB_DIR"
	;;
java-class)
	shift
	[[ $# -ge 1 ]] || die "usage: $0 java-class CLASS [ARGS...]"
	ensure_lib
	# shellcheck disable=SC2086 # KAFKA_BENCH_JAVA_OPTS is a list of flags
	exec java ${KAFKA_BENCH_JAVA_OPTS:-} -Dlog4j2.configurationFile="$LOG4J_CONFIG" \
		-cp "$LIB_DIR/*" "$@"
	;;
*)
	cat >&2 <<EOF
usage: $0 lib | log4j | version | mirror-lib | java-class CLASS [ARGS...]
  lib         ensure Kafka $KAFKA_VERSION jars are cached, print the lib dir
  log4j       ensure the cache, print the log4j2 config path
  version     print the pinned Kafka version
  mirror-lib  ensure the MirrorMaker 2 (connect-mirror) jars are cached, print their lib dir
  java-class  run CLASS with -cp 'lib/*' and the log4j2 config
EOF
	exit 2
	;;
esac
