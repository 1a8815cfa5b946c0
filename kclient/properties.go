package kclient

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/config"
)

// property is one setting of the configuration file (its key as the file
// spells it, and its value) with the franz-go options it maps to, so that a
// client franz-go refuses is refused naming the key the user wrote (Check).
type property struct {
	key   string // "" for options of the probe's own, not the user's
	value any
	opts  []kgo.Opt
	// starts marks options that make a client connect when it is built
	// (a group, topics to consume): Check leaves them out.
	starts bool
}

func flatten(props []property) []kgo.Opt {
	var opts []kgo.Opt
	for _, p := range props {
		opts = append(opts, p.opts...)
	}
	return opts
}

// ProducerOpts maps the Kafka producer properties of probe p onto franz-go;
// the table in docs/configuration.md ("Kafka property mapping") mirrors producerProps.
func ProducerOpts(p config.Probe) []kgo.Opt { return flatten(producerProps(p)) }

func producerProps(p config.Probe) []property {
	pr := p.Producer
	// Kafka sends a record larger than batch.size in a batch of its own;
	// franz-go would fail it, so the batch limit fits one record. The key
	// named when franz-go refuses the limit is the one that set it.
	batch := max(pr.BatchSize, p.RecordSize+config.BatchOverhead)
	batchKey, batchValue := "producer.batch.size", any(pr.BatchSize)
	if batch > pr.BatchSize && batch >= minBatchBytes {
		batchKey, batchValue = "record_size", p.RecordSize
	}
	props := []property{
		{key: "topic", value: p.Topic, opts: []kgo.Opt{kgo.DefaultProduceTopic(p.Topic)}},
		// The probe chooses partitions itself, round-robin, so every
		// partition and so every leader broker is exercised.
		{opts: []kgo.Opt{kgo.RecordPartitioner(kgo.ManualPartitioner())}},
		{key: "producer.linger.ms", value: pr.LingerMS, opts: []kgo.Opt{kgo.ProducerLinger(time.Duration(pr.LingerMS) * time.Millisecond)}},
		{key: batchKey, value: batchValue, opts: []kgo.Opt{kgo.ProducerBatchMaxBytes(int32(min(batch, 1<<31-1)))}},
		{key: "producer.buffer.memory", value: pr.BufferMemory, opts: []kgo.Opt{
			kgo.MaxBufferedBytes(int(pr.BufferMemory)),
			// Java bounds the buffer by bytes only; franz-go also by
			// records (10,000 by default), which would cap small records
			// too early.
			kgo.MaxBufferedRecords(int(pr.BufferMemory/int64(p.RecordSize)) + 1),
		}},
		{key: "producer.request.timeout.ms", value: pr.RequestTimeoutMS, opts: []kgo.Opt{kgo.ProduceRequestTimeout(time.Duration(pr.RequestTimeoutMS) * time.Millisecond)}},
		{key: "producer.delivery.timeout.ms", value: pr.DeliveryTimeoutMS, opts: []kgo.Opt{kgo.RecordDeliveryTimeout(time.Duration(pr.DeliveryTimeoutMS) * time.Millisecond)}},
		{key: "producer.compression.type", value: pr.CompressionType, opts: []kgo.Opt{kgo.ProducerBatchCompression(compression(pr.CompressionType))}},
	}
	if pr.Retries < 2147483647 {
		props = append(props, property{key: "producer.retries", value: pr.Retries, opts: []kgo.Opt{kgo.RecordRetries(pr.Retries)}})
	}
	acks := kgo.AllISRAcks()
	switch pr.Acks {
	case "0":
		acks = kgo.NoAck()
	case "1":
		acks = kgo.LeaderAck()
	}
	props = append(props, property{key: "producer.acks", value: pr.Acks, opts: []kgo.Opt{kgo.RequiredAcks(acks)}})
	if !pr.Idempotent() {
		props = append(props, property{key: "producer.max.in.flight.requests.per.connection", value: pr.MaxInFlight,
			opts: []kgo.Opt{kgo.DisableIdempotentWrite(), kgo.MaxProduceRequestsInflightPerBroker(pr.MaxInFlight)}})
	}
	return props
}

// minBatchBytes is franz-go's smallest record batch limit.
const minBatchBytes = 512

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
	return flatten(consumerProps(p, onRevoked))
}

func consumerProps(p config.Probe, onRevoked func(context.Context, *kgo.Client, map[string][]int32)) []property {
	c := p.Consumer
	reset := kgo.NewOffset().AtStart()
	if c.AutoOffsetReset == "latest" {
		reset = kgo.NewOffset().AtEnd()
	}
	ms := func(v int) time.Duration { return time.Duration(v) * time.Millisecond }
	return []property{
		{key: "consumer.group.id", value: c.GroupID, opts: []kgo.Opt{kgo.ConsumerGroup(c.GroupID)}, starts: true},
		{key: "topic", value: p.Topic, opts: []kgo.Opt{kgo.ConsumeTopics(p.Topic)}, starts: true},
		{opts: []kgo.Opt{kgo.DisableAutoCommit(), kgo.BlockRebalanceOnPoll(), kgo.OnPartitionsRevoked(onRevoked)}, starts: true},
		{key: "consumer.auto.offset.reset", value: c.AutoOffsetReset, opts: []kgo.Opt{kgo.ConsumeResetOffset(reset), kgo.ConsumeStartOffset(kgo.NewOffset().AtStart())}},
		{key: "consumer.fetch.min.bytes", value: c.FetchMinBytes, opts: []kgo.Opt{kgo.FetchMinBytes(c.FetchMinBytes)}},
		{key: "consumer.fetch.max.bytes", value: c.FetchMaxBytes, opts: []kgo.Opt{kgo.FetchMaxBytes(c.FetchMaxBytes)}},
		{key: "consumer.max.partition.fetch.bytes", value: c.MaxPartitionFetchBytes, opts: []kgo.Opt{kgo.FetchMaxPartitionBytes(c.MaxPartitionFetchBytes)}},
		{key: "consumer.fetch.max.wait.ms", value: c.FetchMaxWaitMS, opts: []kgo.Opt{kgo.FetchMaxWait(ms(c.FetchMaxWaitMS))}},
		{key: "consumer.session.timeout.ms", value: c.SessionTimeoutMS, opts: []kgo.Opt{kgo.SessionTimeout(ms(c.SessionTimeoutMS))}},
		{key: "consumer.heartbeat.interval.ms", value: c.HeartbeatIntervalMS, opts: []kgo.Opt{kgo.HeartbeatInterval(ms(c.HeartbeatIntervalMS))}},
	}
}
