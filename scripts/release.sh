#!/usr/bin/env bash
# A release from a tagged commit: archives of static binaries per platform,
# SHA256SUMS, a CycloneDX SBOM and a govulncheck report per binary, the
# dashboards and alert rules, the Helm chart, and a multi-platform OCI image —
# byte for byte the same on every run from the same commit (with the same Go
# toolchain and CA bundle). A known vulnerability that the code reaches (in
# the source of any of the three modules, or in a binary) stops it
# (scripts/govulncheck.sh, whose database version it pins).
#
#   git tag -a v0.1.0 -m v0.1.0 && scripts/release.sh v0.1.0
#   scripts/release.sh tools    only build the tools it uses (scripts/test.sh
#                               does, beside the Helm CLI), once, then cached
#   scripts/release.sh docs     print what each platform archive carries beside
#                               the binary, as name=path lines
#   scripts/release.sh targets  print the GOOS/GOARCH it builds, one a line
#                               (scripts/test.sh compiles each)
#
# Output: ${RELEASE_DIR:-dist/VERSION}/ (replaced).
#   RELEASE_TARGETS   GOOS/GOARCH list (default: linux/amd64 linux/arm64
#                     darwin/amd64 darwin/arm64 windows/amd64); the image gets
#                     the linux ones
#   RELEASE_COMPAT    1 (default): first run the compatibility smoke test
#                     against each of RELEASE_KAFKA_VERSIONS; 0: skip it
#   RELEASE_KAFKA_VERSIONS  default "3.7.2 3.9.1 4.1.1 4.4.0"
#   IMAGE_REPOSITORY  the name the image archive carries
#                     (default ghcr.io/kafka-bench/kafka_bench_exporter)
#   CA_CERTIFICATES   the image's CA bundle (default: Debian's ca-certificates,
#                     /etc/ssl/certs/ca-certificates.crt)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/go-env.sh" # GOTOOLCHAIN=go<go.mod's go line>, GO_TOOLS_CACHE
cd "$(dirname "$0")/.."

die() {
	echo "release.sh: $*" >&2
	exit 1
}

CYCLONEDX_VERSION=v1.10.0
cyclonedx_dir=$GO_TOOLS_CACHE/cyclonedx-gomod-$CYCLONEDX_VERSION
tools() {
	scripts/go-tool.sh "$cyclonedx_dir" cyclonedx-gomod "github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod@$CYCLONEDX_VERSION"
	GOFLAGS=-buildvcs=false GOWORK=off go build -C deploy/release -trimpath -o "$1" .
}

# The files beside the binary: the README and every page it links to (docs/,
# images included), so that the archive's Markdown links resolve inside it.
archive_docs() {
	printf '%s\n' LICENSE=LICENSE NOTICE=NOTICE README.md=README.md CHANGELOG.md=CHANGELOG.md config.example.yml=config.example.yml
	git ls-files --cached --others --exclude-standard docs | LC_ALL=C sort | sed 's/.*/&=&/'
}

# The platforms of the release: archives of each, the image of the linux ones.
release_targets() {
	printf '%s\n' ${RELEASE_TARGETS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64}
}

version=${1:-}
if [ "$version" = tools ]; then
	tools /dev/null
	exit 0
fi
if [ "$version" = docs ]; then
	archive_docs
	exit 0
fi
if [ "$version" = targets ]; then
	release_targets
	exit 0
fi
[[ $version =~ ^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] ||
	die "VERSION = \"$version\": want a semantic version tag such as v0.1.0 (usage: scripts/release.sh VERSION)"
[ -z "$(git status --porcelain)" ] || die "the tree has uncommitted changes: a release is built from a commit"
head=$(git rev-parse HEAD)
tagged=$(git rev-parse -q --verify "refs/tags/$version^{commit}" || true)
[ "$tagged" = "$head" ] || die "tag $version = \"${tagged:-none}\": want it on HEAD $head (git tag -a $version -m $version)"

SOURCE_DATE_EPOCH=$(git log -1 --format=%ct HEAD)
export SOURCE_DATE_EPOCH
out=${RELEASE_DIR:-dist/$version}
mapfile -t targets < <(release_targets)
ca=${CA_CERTIFICATES:-/etc/ssl/certs/ca-certificates.crt}
repository=${IMAGE_REPOSITORY:-ghcr.io/kafka-bench/kafka_bench_exporter}
source_url=https://github.com/kafka-bench/kafka_bench_exporter
[ -r "$ca" ] || die "CA_CERTIFICATES = \"$ca\": not readable (apt-get install ca-certificates)"

echo "== govulncheck: the exporter, deploy/validate, deploy/release" >&2
for mod in . deploy/validate deploy/release; do
	scripts/govulncheck.sh -C "$mod" ./... >&2 || die "govulncheck: known vulnerabilities reachable in the module in $mod (above)"
done

if [ "${RELEASE_COMPAT:-1}" = 1 ]; then
	# The daemon with records flowing and nothing lost, a configuration
	# change on /changes, a bench scenario that sets and restores a broker.*
	# setting: on each Kafka version the release supports.
	for kv in ${RELEASE_KAFKA_VERSIONS:-3.7.2 3.9.1 4.1.1 4.4.0}; do
		echo "== compatibility smoke test: Kafka $kv" >&2
		KAFKA_VERSION=$kv KAFKA_BENCH_INTEGRATION=1 go test -count=1 -p 1 -timeout 15m ./integration \
			-run '^(TestSingleBrokerAcks1|TestConfigWatch|TestConfigExperimentAppliesAndRestores)$' >&2 ||
			die "the compatibility smoke test failed on Kafka $kv"
	done
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tools "$work/release"
tool=$work/release

rm -rf "$out"
mkdir -p "$out"
mtime=(-mtime "$SOURCE_DATE_EPOCH")
mapfile -t docs < <(archive_docs)
image_bins=()
for target in "${targets[@]}"; do
	goos=${target%/*} goarch=${target#*/}
	name=kafka_bench_exporter-$version.$goos-$goarch
	exe=kafka_bench_exporter
	[ "$goos" = windows ] && exe+=.exe
	echo "== $name" >&2
	GOOS=$goos GOARCH=$goarch VERSION=$version REVISION=$head BRANCH=HEAD BUILD_USER=scripts/release.sh \
		BUILD_DATE= scripts/build.sh "$work/$name/$exe"
	if [ "$goos" = windows ]; then
		archive=$out/$name.zip
	else
		archive=$out/$name.tar.gz
	fi
	"$tool" archive -o "$archive" "${mtime[@]}" -prefix "$name/" "$exe=$work/$name/$exe" "${docs[@]}"
	GOOS=$goos GOARCH=$goarch CGO_ENABLED=0 "$cyclonedx_dir/cyclonedx-gomod" app -json -licenses -noserial -notimestamp \
		-main cmd/kafka_bench_exporter -output "$out/$name.cdx.json" . 2>"$work/cyclonedx.log" ||
		{
			cat "$work/cyclonedx.log" >&2
			die "cyclonedx-gomod failed for $target"
		}
	# What the binary holds (its modules, the toolchain's standard library)
	# against the known vulnerabilities: the report beside the SBOM.
	scripts/govulncheck.sh -mode binary -show verbose "$work/$name/$exe" >"$out/$name.govulncheck.txt" || {
		cat "$out/$name.govulncheck.txt" >&2
		die "govulncheck: known vulnerabilities in the binary for $target (above)"
	}
	[ "$goos" = linux ] && image_bins+=(-binary "$target=$work/$name/$exe")
done

echo "== dashboards, alert rules and the mixin they are rendered from" >&2
monitoring=()
for f in dashboards/*.json dashboards/import/*.json alerts/*.yml mixin/jsonnetfile.json mixin/*.libsonnet mixin/*/*.libsonnet; do
	monitoring+=("$f=$f")
done
"$tool" archive -o "$out/kafka_bench_exporter-$version.monitoring.tar.gz" "${mtime[@]}" \
	-prefix "kafka_bench_exporter-$version.monitoring/" "${monitoring[@]}"

echo "== Helm chart" >&2
# helm package stamps the time of packaging: the chart is archived again with
# the commit's time.
scripts/helm.sh package deploy/helm/kafka-bench-exporter --version "$version" --app-version "$version" \
	-d "$work/chart" >&2
"$tool" retar -o "$out/kafka-bench-exporter-$version.tgz" "${mtime[@]}" "$work/chart/kafka-bench-exporter-$version.tgz"

if [ ${#image_bins[@]} -gt 0 ]; then
	echo "== OCI image $repository:$version" >&2
	share=()
	for f in dashboards/*.json alerts/*.yml; do
		share+=(-share "$f=$f")
	done
	digest=$("$tool" image -o "$out/kafka_bench_exporter-$version.oci.tar" "${mtime[@]}" -version "$version" \
		-revision "$head" -source "$source_url" -ref "$repository:$version" -ca "$ca" "${image_bins[@]}" "${share[@]}")
	echo "image index $digest" >&2
fi

(cd "$out" && find . -maxdepth 1 -type f ! -name SHA256SUMS -printf '%f\n' | LC_ALL=C sort | xargs sha256sum >SHA256SUMS)
echo "release $version ($head) in $out:" >&2
ls -l "$out" >&2
