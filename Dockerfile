# syntax=docker/dockerfile:1
#
# kafka_bench_exporter container image.
#
#   docker build \
#     --build-arg VERSION="$(scripts/build.sh --print-version)" \
#     --build-arg REVISION="$(git rev-parse HEAD)" \
#     --build-arg BRANCH="$(git rev-parse --abbrev-ref HEAD)" \
#     --build-arg BUILD_DATE="$(date -u +%Y%m%d-%H:%M:%S)" \
#     -t kafka_bench_exporter .
#
# .git is not sent to the builder (.dockerignore), so the version fields come
# from the build arguments; without them they read "unknown".
# The builder's Go version is go.mod's `go` line (a test keeps them equal).

FROM --platform=$BUILDPLATFORM golang:1.27.3 AS builder
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=unknown
ARG REVISION=unknown
ARG BRANCH=unknown
ARG BUILD_DATE
ARG TARGETOS
ARG TARGETARCH
RUN VERSION="$VERSION" REVISION="$REVISION" BRANCH="$BRANCH" BUILD_DATE="$BUILD_DATE" BUILD_USER=docker \
    GOOS="${TARGETOS:-linux}" GOARCH="${TARGETARCH:-amd64}" \
    scripts/build.sh /out/kafka_bench_exporter

# Static binary, no shell, uid/gid 65532 (nonroot).
FROM gcr.io/distroless/static-debian12:nonroot
ARG VERSION=unknown
ARG REVISION=unknown
ARG BUILD_DATE
LABEL org.opencontainers.image.title="kafka_bench_exporter" \
      org.opencontainers.image.description="Continuous Apache Kafka producer/consumer benchmark probes, exported for Prometheus" \
      org.opencontainers.image.source="https://github.com/kafka-bench/kafka_bench_exporter" \
      org.opencontainers.image.url="https://github.com/kafka-bench/kafka_bench_exporter" \
      org.opencontainers.image.documentation="https://github.com/kafka-bench/kafka_bench_exporter/blob/main/README.md" \
      org.opencontainers.image.version="$VERSION" \
      org.opencontainers.image.revision="$REVISION" \
      org.opencontainers.image.created="$BUILD_DATE" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.base.name="gcr.io/distroless/static-debian12:nonroot"
COPY --from=builder /out/kafka_bench_exporter /usr/bin/kafka_bench_exporter
# The Grafana dashboards and Prometheus rules that match this binary's
# metrics, for provisioning from the image (e.g. an init container).
COPY dashboards/*.json /usr/share/kafka_bench_exporter/dashboards/
COPY alerts/*.yml /usr/share/kafka_bench_exporter/alerts/
USER 65532:65532
EXPOSE 10092
# Without arguments it probes an embedded in-process cluster (a demo); give
# --kafka.brokers or --config.file for a real one.
ENTRYPOINT ["/usr/bin/kafka_bench_exporter"]
