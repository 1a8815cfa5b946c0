package kclient

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/config"
)

// ProducerOpts maps the Kafka producer properties of probe p onto franz-go;
// the table in README.md ("Kafka property mapping") mirrors this function.
func ProducerOpts(p config.Probe) []kgo.Opt {
	pr := p.Producer
	opts := []kgo.Opt{
		kgo.DefaultProduceTopic(p.Topic),
		// The probe chooses partitions itself, round-robin, so every
		// partition and so every leader broker is exercised.
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerLinger(time.Duration(pr.LingerMS) * time.Millisecond),
		// Kafka sends a record larger than batch.size in a batch of its
		// own; franz-go would fail it, so the batch limit fits one record.
		kgo.ProducerBatchMaxBytes(int32(max(pr.BatchSize, p.RecordSize+config.BatchOverhead))),
		kgo.MaxBufferedBytes(int(pr.BufferMemory)),
		// Java bounds the buffer by bytes only; franz-go also by records
		// (10,000 by default), which would cap small records too early.
		kgo.MaxBufferedRecords(int(pr.BufferMemory/int64(p.RecordSize)) + 1),
		kgo.ProduceRequestTimeout(time.Duration(pr.RequestTimeoutMS) * time.Millisecond),
		kgo.RecordDeliveryTimeout(time.Duration(pr.DeliveryTimeoutMS) * time.Millisecond),
		kgo.ProducerBatchCompression(compression(pr.CompressionType)),
	}
	if pr.Retries < 2147483647 {
		opts = append(opts, kgo.RecordRetries(pr.Retries))
	}
	switch pr.Acks {
	case "0":
		opts = append(opts, kgo.RequiredAcks(kgo.NoAck()))
	case "1":
		opts = append(opts, kgo.RequiredAcks(kgo.LeaderAck()))
	default:
		opts = append(opts, kgo.RequiredAcks(kgo.AllISRAcks()))
	}
	if !pr.Idempotent() {
		opts = append(opts, kgo.DisableIdempotentWrite(), kgo.MaxProduceRequestsInflightPerBroker(pr.MaxInFlight))
	}
	return opts
}

func compression(name string) kgo.CompressionCodec {
	switch name {
	case "gzip":
		return kgo.GzipCompression()
	case "snappy":
		return kgo.SnappyCompression()
	case "lz4":
		return kgo.Lz4Compression()
	case "zstd":
		return kgo.ZstdCompression()
	}
	return kgo.NoCompression()
}

// ConsumerOpts maps the Kafka consumer properties of probe p onto franz-go.
// Offsets are committed by the probe itself (to time the commits), after
// processing. auto.offset.reset applies when a committed offset is out of
// range; a partition without a commit is read from its start: the probe
// commits the end of every partition it finds at start, so one without a
// commit was added while it ran, and its records are the probe's own.
func ConsumerOpts(p config.Probe, onRevoked func(context.Context, *kgo.Client, map[string][]int32)) []kgo.Opt {
	c := p.Consumer
	reset := kgo.NewOffset().AtStart()
	if c.AutoOffsetReset == "latest" {
		reset = kgo.NewOffset().AtEnd()
	}
	return []kgo.Opt{
		kgo.ConsumerGroup(c.GroupID),
		kgo.ConsumeTopics(p.Topic),
		kgo.DisableAutoCommit(),
		kgo.BlockRebalanceOnPoll(),
		kgo.OnPartitionsRevoked(onRevoked),
		kgo.ConsumeResetOffset(reset),
		kgo.ConsumeStartOffset(kgo.NewOffset().AtStart()),
		kgo.FetchMinBytes(c.FetchMinBytes),
		kgo.FetchMaxBytes(c.FetchMaxBytes),
		kgo.FetchMaxPartitionBytes(c.MaxPartitionFetchBytes),
		kgo.FetchMaxWait(time.Duration(c.FetchMaxWaitMS) * time.Millisecond),
		kgo.SessionTimeout(time.Duration(c.SessionTimeoutMS) * time.Millisecond),
		kgo.HeartbeatInterval(time.Duration(c.HeartbeatIntervalMS) * time.Millisecond),
	}
}
