package kclient

import (
	"context"
	"strconv"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/kafkaprops"
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
		{key: batchKey, value: batchValue, opts: []kgo.Opt{kgo.ProducerBatchMaxBytes(int32(min(batch, 1<<31-1)))}},
		{key: "producer.buffer.memory", value: pr.BufferMemory, opts: []kgo.Opt{
			kgo.MaxBufferedBytes(int(pr.BufferMemory)),
			// Java bounds the buffer by bytes only; franz-go also by
			// records (10,000 by default), which would cap small records
			// too early.
			kgo.MaxBufferedRecords(int(pr.BufferMemory/int64(p.RecordSize)) + 1),
		}},
		{key: compressionKey(pr), value: compressionValue(pr), opts: []kgo.Opt{kgo.ProducerBatchCompression(compression(pr))}},
	}
	props = append(props, plainProps("producer", pr.Property)...)
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
	if pr.Transactional() {
		props = append(props,
			property{key: "producer.transactional.id", value: pr.TransactionalID, opts: []kgo.Opt{kgo.TransactionalID(pr.TransactionalID)}},
			property{key: "producer.transaction.timeout.ms", value: pr.TransactionTimeoutMS, opts: []kgo.Opt{kgo.TransactionTimeout(time.Duration(pr.TransactionTimeoutMS) * time.Millisecond)}})
	}
	return props
}

// minBatchBytes is franz-go's smallest record batch limit.
const minBatchBytes = 512

// compression is the codec of compression.type at the level of its
// compression.<type>.level, when set.
func compression(pr config.Producer) kgo.CompressionCodec {
	switch pr.CompressionType {
	case "gzip":
		if pr.CompressionGzipLevel != nil {
			return kgo.GzipCompression().WithLevel(*pr.CompressionGzipLevel)
		}
		return kgo.GzipCompression()
	case "snappy":
		return kgo.SnappyCompression()
	case "lz4":
		if pr.CompressionLz4Level != nil {
			// pierrec/lz4's levels: Level1 = 1<<9 ... Level9 = 1<<17.
			return kgo.Lz4Compression().WithLevel(int(lz4.Level1) << (*pr.CompressionLz4Level - 1))
		}
		return kgo.Lz4Compression()
	case "zstd":
		if pr.CompressionZstdLevel != nil {
			return kgo.ZstdCompression().WithLevel(int(zstd.EncoderLevelFromZstd(*pr.CompressionZstdLevel)))
		}
		return kgo.ZstdCompression()
	}
	return kgo.NoCompression()
}

// compressionKey names the level's key when one applies, so a level
// franz-go refuses is named as such.
func compressionKey(pr config.Producer) string {
	if k, _ := compressionLevel(pr); k != "" {
		return k
	}
	return "producer.compression.type"
}

func compressionValue(pr config.Producer) any {
	if k, v := compressionLevel(pr); k != "" {
		return v
	}
	return pr.CompressionType
}

func compressionLevel(pr config.Producer) (string, int) {
	level := map[string]*int{"gzip": pr.CompressionGzipLevel, "lz4": pr.CompressionLz4Level, "zstd": pr.CompressionZstdLevel}[pr.CompressionType]
	if level == nil {
		return "", 0
	}
	return "producer.compression." + pr.CompressionType + ".level", *level
}

// plainProps are the options of block's plain properties
// (kafkaprops.Plain), their values read by get: the rows build them.
func plainProps(block string, get func(string) (any, bool)) []property {
	var props []property
	for _, row := range kafkaprops.Plains(block) {
		v, ok := get(row.Name)
		if !ok || row.Plain.Build == nil {
			continue
		}
		if opts := row.Plain.Build(v); len(opts) > 0 {
			props = append(props, property{key: block + "." + row.Name, value: v, opts: opts})
		}
	}
	return props
}

// GroupCallbacks are the consumer's rebalance callbacks; nil ones are left
// out.
type GroupCallbacks struct {
	Assigned, Revoked, Lost func(context.Context, *kgo.Client, map[string][]int32)
}

func (g GroupCallbacks) opts() []kgo.Opt {
	var opts []kgo.Opt
	if g.Assigned != nil {
		opts = append(opts, kgo.OnPartitionsAssigned(g.Assigned))
	}
	if g.Revoked != nil {
		opts = append(opts, kgo.OnPartitionsRevoked(g.Revoked))
	}
	if g.Lost != nil {
		opts = append(opts, kgo.OnPartitionsLost(g.Lost))
	}
	return opts
}

// ConsumerOpts maps the Kafka consumer properties of probe p onto franz-go
// for group member member (0, 1, ...). Offsets are committed by the probe
// itself (to time the commits), after processing. auto.offset.reset
// applies when a committed offset is out of range; a partition without a
// commit is read from its start: the probe commits the end of every
// partition it finds at start, so one without a commit was added while it
// ran, and its records are the probe's own.
func ConsumerOpts(p config.Probe, member int, cb GroupCallbacks) []kgo.Opt {
	return flatten(consumerProps(p, member, cb))
}

// InstanceID is group.instance.id of member member: with several
// consumers each needs its own.
func InstanceID(c config.Consumer, member int) string {
	if c.Consumers > 1 {
		return c.GroupInstanceID + "-" + strconv.Itoa(member)
	}
	return c.GroupInstanceID
}

func consumerProps(p config.Probe, member int, cb GroupCallbacks) []property {
	c := p.Consumer
	reset := kgo.NewOffset().AtStart()
	if c.AutoOffsetReset == "latest" {
		reset = kgo.NewOffset().AtEnd()
	}
	ms := func(v int) time.Duration { return time.Duration(v) * time.Millisecond }
	props := []property{
		{key: "consumer.group.id", value: c.GroupID, opts: []kgo.Opt{kgo.ConsumerGroup(c.GroupID)}, starts: true},
		{key: "topic", value: p.Topic, opts: []kgo.Opt{kgo.ConsumeTopics(p.Topic)}, starts: true},
		{opts: append([]kgo.Opt{kgo.DisableAutoCommit(), kgo.BlockRebalanceOnPoll()}, cb.opts()...), starts: true},
		{key: "consumer.auto.offset.reset", value: c.AutoOffsetReset, opts: []kgo.Opt{kgo.ConsumeResetOffset(reset), kgo.ConsumeStartOffset(kgo.NewOffset().AtStart())}},
	}
	if c.GroupProtocol == config.GroupProtocolClassic {
		// With the consumer protocol the broker's settings apply.
		props = append(props,
			property{key: "consumer.session.timeout.ms", value: c.SessionTimeout(), opts: []kgo.Opt{kgo.SessionTimeout(ms(c.SessionTimeout()))}},
			property{key: "consumer.heartbeat.interval.ms", value: c.HeartbeatInterval(), opts: []kgo.Opt{kgo.HeartbeatInterval(ms(c.HeartbeatInterval()))}})
	}
	props = append(props, groupProtocolProps(c)...)
	if c.GroupInstanceID != "" {
		props = append(props, property{key: "consumer.group.instance.id", value: c.GroupInstanceID, opts: []kgo.Opt{kgo.InstanceID(InstanceID(c, member))}})
	}
	if c.MaxPollIntervalMS != nil {
		props = append(props, property{key: "consumer.max.poll.interval.ms", value: *c.MaxPollIntervalMS, opts: []kgo.Opt{kgo.RebalanceTimeout(ms(*c.MaxPollIntervalMS))}})
	}
	if p.Producer.Transactional() {
		// The probe sees its transactions' markers, so that its position
		// and its commits pass them: caught up is then lag 0, not one
		// marker per partition.
		props = append(props, property{opts: []kgo.Opt{kgo.KeepControlRecords()}})
	}
	if c.ReadCommitted() {
		props = append(props, property{key: "consumer.isolation.level", value: c.IsolationLevel, opts: []kgo.Opt{kgo.FetchIsolationLevel(kgo.ReadCommitted())}})
	}
	if c.ClientRack != "" && c.GroupProtocol == config.GroupProtocolClassic {
		// Rack-aware assignment of the classic range and sticky
		// balancers; Rack itself is in consumerKindsProps.
		props = append(props, property{key: "consumer.client.rack", value: c.ClientRack, opts: []kgo.Opt{kgo.BalanceRacks()}})
	}
	return append(props, consumerKindsProps(c)...)
}

// consumerKindsProps are the consumer properties both consumer kinds
// apply, a consumer group's members (consumerProps) and a share group's
// (shareConsumerProps): the one list of them, so that a key cannot reach
// the one and be forgotten by the other.
func consumerKindsProps(c config.Consumer) []property {
	props := plainProps("consumer", c.Property)
	if c.ClientRack != "" {
		props = append(props, property{key: "consumer.client.rack", value: c.ClientRack, opts: []kgo.Opt{kgo.Rack(c.ClientRack)}})
	}
	return props
}

// groupProtocolProps choose the group protocol and its assignors. With
// group.protocol consumer the broker assigns: franz-go sends the name of
// its first balancer's server-side counterpart (sticky: uniform, range:
// range) and falls back to classic, with the same balancer, when the
// broker lacks KIP-848.
func groupProtocolProps(c config.Consumer) []property {
	if c.GroupProtocol == config.GroupProtocolConsumer {
		balancer := kgo.StickyBalancer()
		if c.RemoteAssignor() == "range" {
			balancer = kgo.RangeBalancer()
		}
		return []property{{key: "consumer.group.protocol", value: c.GroupProtocol, opts: []kgo.Opt{kgo.ServerSideBalancer(), kgo.Balancers(balancer)}}}
	}
	var balancers []kgo.GroupBalancer
	for _, a := range c.Assignors() {
		balancers = append(balancers, Balancer(a))
	}
	return []property{{key: "consumer.partition.assignment.strategy", value: c.PartitionAssignmentStrategy, opts: []kgo.Opt{kgo.Balancers(balancers...)}}}
}

// Balancer is franz-go's balancer of a partition.assignment.strategy name
// (config.Assignor*).
func Balancer(name string) kgo.GroupBalancer {
	switch name {
	case config.AssignorRange:
		return kgo.RangeBalancer()
	case config.AssignorRoundRobin:
		return kgo.RoundRobinBalancer()
	case config.AssignorSticky:
		return kgo.StickyBalancer()
	}
	return kgo.CooperativeStickyBalancer()
}
