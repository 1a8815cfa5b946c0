module github.com/kafka-bench/kafka_bench_exporter/deploy/release

go 1.27.3

require github.com/google/go-containerregistry v0.22.1

require (
	github.com/klauspost/compress v1.20.3 // indirect
	github.com/opencontainers/go-digest v1.0.0 // indirect
	github.com/opencontainers/image-spec v1.1.1 // indirect
	golang.org/x/sync v0.22.0 // indirect
)
