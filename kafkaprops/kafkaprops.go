// Package kafkaprops classifies every property of Apache Kafka's Java
// ProducerConfig and ConsumerConfig (kafka-clients 4.4.0): mapped onto a
// franz-go option under the probe's producer: or consumer: block, refused
// because franz-go cannot do what it asks, or not applicable to a probe.
// It is data only, so that the configuration's strict decoding can name
// the reason of a refusal before any client exists; kclient builds the
// options and its tests read each mapped one back from a built client.
package kafkaprops

import (
	"math"
	"sort"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Class is what the probe does with a Kafka property.
type Class string

// The classes of a property.
const (
	Mapped        Class = "mapped"
	Refused       Class = "refused"
	NotApplicable Class = "not applicable"
)

// Clients a property belongs to.
type Clients uint8

// The Java clients.
const (
	Producer Clients = 1 << iota
	Consumer
	Both = Producer | Consumer
)

// Type is the type Kafka's ConfigDef gives a property: how the Java
// client parses its value, and, for TypePassword, that it is a secret
// (every output shows its value as <secret>, see Secret).
type Type string

// The types of ConfigDef.Type.
const (
	TypeBoolean  Type = "BOOLEAN"
	TypeString   Type = "STRING"
	TypeInt      Type = "INT"
	TypeShort    Type = "SHORT"
	TypeLong     Type = "LONG"
	TypeDouble   Type = "DOUBLE"
	TypeList     Type = "LIST"
	TypeClass    Type = "CLASS"
	TypePassword Type = "PASSWORD"
)

// Property is one Kafka client property.
type Property struct {
	In    Clients
	Name  string
	Type  Type
	Class Class
	// Options are the franz-go options a mapped property sets, by the
	// names (*kgo.Client).OptValue looks them up by.
	Options []string
	// Note is, for a mapped property, how it maps where it is not one to
	// one; for the others, why not.
	Note string
	// Plain, set for a mapped property that is one key of its block with
	// a one-to-one mapping, is all the configuration and the clients know
	// of it (see Plain); the others are mapped by hand (kclient).
	Plain *Plain
}

// Block is the configuration block ("producer" or "consumer") of c.
func (c Clients) Block() string {
	if c == Consumer {
		return "consumer"
	}
	return "producer"
}

func m(in Clients, name string, t Type, note string, opts ...string) Property {
	return Property{In: in, Name: name, Type: t, Class: Mapped, Options: opts, Note: note}
}

func r(in Clients, name string, t Type, why string) Property {
	return Property{In: in, Name: name, Type: t, Class: Refused, Note: why}
}

func na(in Clients, name string, t Type, why string) Property {
	return Property{In: in, Name: name, Type: t, Class: NotApplicable, Note: why}
}

// metadataMaxAge is metadata.max.age.ms, the producer's and the
// consumer's.
var metadataMaxAge = Plain{Default: int64(300000), Min: 1, Values: "250 … 3600000 (franz-go)", Doc: "the longest time between two metadata refreshes", Example: int64(60000), Build: millis(kgo.MetadataMaxAge)}

// Reasons shared by several properties.
const (
	connection   = "a connection setting: the kafka block sets it for every client of the cluster (kafka.brokers, kafka.client_id, kafka.tls, kafka.sasl)"
	javaClass    = "names a Java class, which a Go client cannot load"
	ownBackoff   = "the probe's clients retry and reconnect with one backoff of their own, 100 ms growing to 1 s (kgo.RetryBackoffFn), so that a returning broker is seen at once"
	ownPartition = "the probe chooses every record's partition itself, round-robin over all of them (kgo.ManualPartitioner), so that every partition and every leader is measured"
	ownBytes     = "the probe writes and reads its own record bytes (a header with sequence number and send time, then the payload)"
	javaMetrics  = "the Java client's own metrics registry: franz-go's client metrics are exported as kafka_bench_client_* (kprom)"
)

// Properties is every name of ProducerConfig and ConsumerConfig of
// kafka-clients 4.4.0, sorted by name.
var Properties = sorted(append([]Property{
	// Producer.
	m(Producer, "acks", TypeString, "NoAck / LeaderAck / AllISRAcks", "RequiredAcks"),
	m(Producer, "batch.size", TypeInt, "raised to fit one record: Kafka sends a larger record in a batch of its own, franz-go would fail it", "ProducerBatchMaxBytes"),
	m(Producer, "buffer.memory", TypeLong, "franz-go also caps buffered records (10,000 by default), Kafka bytes only: MaxBufferedRecords is buffer.memory / record_size", "MaxBufferedBytes", "MaxBufferedRecords"),
	na(Producer, "buffer.memory.allocation.strategy", TypeString, "chooses how the Java producer pools its buffer memory; Go's allocator and franz-go's pools have no such choice"),
	m(Producer, "compression.type", TypeString, "", "ProducerBatchCompression"),
	m(Producer, "compression.gzip.level", TypeInt, "with compression.type gzip: CompressionCodec.WithLevel; unset, gzip's default level", "ProducerBatchCompression"),
	m(Producer, "compression.lz4.level", TypeInt, "with compression.type lz4: CompressionCodec.WithLevel (pierrec/lz4 levels 1 to 9, Java's 10 to 17 have none); unset, franz-go's fastest level", "ProducerBatchCompression"),
	m(Producer, "compression.zstd.level", TypeInt, "with compression.type zstd: CompressionCodec.WithLevel (zstd.EncoderLevelFromZstd: klauspost/compress has 4 speeds, a level picks the nearest); unset, its default", "ProducerBatchCompression"),
	m(Producer, "delivery.timeout.ms", TypeInt, "", "RecordDeliveryTimeout").With(Plain{Default: int64(120000), Min: math.MinInt64, Values: "≥ linger.ms + request.timeout.ms, and ≥ 1000 (franz-go)", Example: int64(200000), Build: millis(kgo.RecordDeliveryTimeout)}),
	m(Producer, "enable.idempotence", TypeBoolean, "false: DisableIdempotentWrite", "DisableIdempotentWrite"),
	na(Producer, "key.serializer", TypeClass, ownBytes),
	na(Producer, "value.serializer", TypeClass, ownBytes),
	m(Producer, "linger.ms", TypeLong, "", "ProducerLinger").With(Plain{Default: int64(5), Values: "0 … 60000 (franz-go)", Example: int64(20), Build: millis(kgo.ProducerLinger)}),
	r(Producer, "max.block.ms", TypeLong, "franz-go blocks a produce on a full buffer until the record's context ends; it has no time limit of its own (the probe counts a record that waits too long as behind_schedule)"),
	m(Producer, "max.in.flight.requests.per.connection", TypeInt, "only without idempotence; with it franz-go uses 5, as Kafka", "MaxProduceRequestsInflightPerBroker"),
	m(Producer, "max.request.size", TypeInt, "franz-go's limit on any request to a broker; unset, franz-go's 100 MiB (Kafka's socket.request.max.bytes)", "BrokerMaxWriteBytes").With(Plain{Min: math.MinInt64, DefaultDoc: "unset: franz-go's 104857600", Values: "≥ record_size + 128; 1024 … 1073741824 (franz-go)", Doc: "the largest request sent to a broker ({kgo.BrokerMaxWriteBytes})", Example: int64(2 << 20), Build: bytes32(kgo.BrokerMaxWriteBytes)}),
	na(Producer, "metadata.max.idle.ms", TypeLong, "forgets topics a Java producer stopped writing; the probe writes its one topic all the time"),
	na(Producer, "partitioner.adaptive.partitioning.enable", TypeBoolean, ownPartition),
	na(Producer, "partitioner.availability.timeout.ms", TypeLong, ownPartition),
	na(Producer, "partitioner.class", TypeClass, ownPartition),
	na(Producer, "partitioner.ignore.keys", TypeBoolean, ownPartition),
	na(Producer, "partitioner.rack.aware", TypeBoolean, ownPartition+"; rack-aware partitioning (kgo.RackAwarePartitioning) would skip partitions"),
	m(Producer, "request.timeout.ms", TypeInt, "", "ProduceRequestTimeout").With(Plain{Default: int64(30000), Min: 1, Values: "100 … 2147483647 (franz-go)", Example: int64(10000), Build: millis(kgo.ProduceRequestTimeout)}),
	m(Producer, "retries", TypeInt, "the default, 2147483647, leaves franz-go retrying until delivery.timeout.ms", "RecordRetries"),
	m(Producer, "transaction.timeout.ms", TypeInt, "with transactional.id", "TransactionTimeout"),
	r(Producer, "transaction.two.phase.commit.enable", TypeBoolean, "franz-go has no two-phase commit participation (KIP-939)"),
	m(Producer, "transactional.id", TypeString, "suffixed -<probe>-<host name>: each probe of each exporter has its own; the probe's producer then writes in transactions of transaction.duration.ms (its own key, as ProducerPerformance's --transaction-duration-ms), aborting a share transaction.abort.ratio of them", "TransactionalID"),

	// Consumer.
	m(Consumer, "allow.auto.create.topics", TypeBoolean, "true: AllowAutoTopicCreation; franz-go's default, and so the probe's, is false, Kafka's true: the probe creates its topic itself (create_topic)", "AllowAutoTopicCreation").With(Plain{Default: false, Doc: "true: a missing topic is created by the broker when the consumer asks for it (with the broker's {auto.create.topics.enable}); Java's default is true, the probe's false, as it creates its topic itself", Example: true, Build: when(true, kgo.AllowAutoTopicCreation)}),
	m(Consumer, "auto.commit.interval.ms", TypeInt, "the probe's own commit interval: it commits synchronously after processing, to time the commits (DisableAutoCommit)").With(Plain{Default: int64(1000), Min: 1, Doc: "how often the probe commits (synchronously, to time the commits)", Example: int64(2000)}),
	m(Consumer, "auto.offset.reset", TypeString, "a partition without a commit starts at its start (ConsumeStartOffset): the probe commits the end of every partition it finds at start, so only one added later has none", "ConsumeResetOffset"),
	m(Consumer, "check.crcs", TypeBoolean, "false: DisableFetchCRCValidation", "DisableFetchCRCValidation").With(Plain{Default: true, Doc: "false: fetched batches' CRCs are not checked", Example: false, Build: when(false, kgo.DisableFetchCRCValidation)}),
	m(Consumer, "client.rack", TypeString, "Rack (fetch from the closest replica, KIP-392) and, for the range and sticky balancers of the classic protocol, BalanceRacks (rack-aware assignment, KIP-881)", "Rack", "BalanceRacks"),
	r(Consumer, "default.api.timeout.ms", TypeInt, "franz-go bounds a blocking call by the context its caller passes, not by a client setting"),
	na(Consumer, "enable.auto.commit", TypeBoolean, "always off: the probe commits synchronously after processing, to time the commits"),
	na(Consumer, "exclude.internal.topics", TypeBoolean, "the probe consumes its one topic by name, never by pattern"),
	m(Consumer, "fetch.max.bytes", TypeInt, "", "FetchMaxBytes").With(Plain{Default: int64(52428800), Min: 1, Values: "1 … 104857600 (franz-go's response limit)", Example: int64(1 << 20), Build: bytes32(kgo.FetchMaxBytes)}),
	m(Consumer, "fetch.max.wait.ms", TypeInt, "", "FetchMaxWait").With(Plain{Default: int64(500), Values: "≥ 10 (franz-go)", Example: int64(100), Build: millis(kgo.FetchMaxWait)}),
	m(Consumer, "fetch.min.bytes", TypeInt, "", "FetchMinBytes").With(Plain{Default: int64(1), Min: 1, Example: int64(1024), Build: bytes32(kgo.FetchMinBytes)}),
	m(Consumer, "group.id", TypeString, "", "ConsumerGroup"),
	m(Consumer, "group.instance.id", TypeString, "static membership (KIP-345); with several consumers each member's id ends in -<member>", "InstanceID"),
	m(Consumer, "group.protocol", TypeString, "consumer: ServerSideBalancer (KIP-848; franz-go falls back to classic when the broker lacks it, kafka_bench_consumer_group_protocol_info shows which one runs); classic: the client-side balancers of partition.assignment.strategy", "ServerSideBalancer", "Balancers"),
	m(Consumer, "group.remote.assignor", TypeString, "with group.protocol consumer: uniform (StickyBalancer) or range (RangeBalancer); franz-go names the broker's assignor from its first balancer; unset, uniform", "Balancers"),
	m(Consumer, "heartbeat.interval.ms", TypeInt, "with group.protocol classic; refused with consumer, as Java refuses it (the broker's group.consumer.heartbeat.interval.ms applies)", "HeartbeatInterval"),
	na(Consumer, "internal.throw.on.fetch.stable.offset.unsupported", TypeBoolean, "an internal setting of the Java consumer for Kafka Streams"),
	m(Consumer, "isolation.level", TypeString, "read_committed: ReadCommitted; read_uncommitted: ReadUncommitted", "FetchIsolationLevel"),
	na(Consumer, "key.deserializer", TypeClass, ownBytes),
	na(Consumer, "value.deserializer", TypeClass, ownBytes),
	m(Consumer, "max.partition.fetch.bytes", TypeInt, "", "FetchMaxPartitionBytes").With(Plain{Default: int64(1048576), Min: 1, Example: int64(65536), Build: bytes32(kgo.FetchMaxPartitionBytes)}),
	m(Consumer, "max.poll.interval.ms", TypeInt, "the rebalance timeout a member sends when it joins, as the Java consumer does; franz-go has no poll deadline (the probe polls all the time); unset, franz-go's 60 s", "RebalanceTimeout"),
	m(Consumer, "max.poll.records", TypeInt, "PollRecords(ctx, max.poll.records) on every poll; a share group's member (consumer.kind share): ShareMaxRecords(max.poll.records), the records of a share fetch, and each poll takes every record its client holds").With(Plain{Default: int64(500), Min: 1, Example: int64(100)}),
	m(Consumer, "partition.assignment.strategy", TypeList, "with group.protocol classic: range (RangeBalancer), roundrobin (RoundRobinBalancer), sticky (StickyBalancer), cooperative-sticky (CooperativeStickyBalancer), or their Java class names, comma-separated in order of preference; unset, cooperative-sticky (franz-go's default; Java's is range, cooperative-sticky)", "Balancers"),
	m(Consumer, "session.timeout.ms", TypeInt, "with group.protocol classic; refused with consumer, as Java refuses it (the broker's group.consumer.session.timeout.ms applies)", "SessionTimeout"),
	na(Consumer, "share.acknowledgement.mode", TypeString, "a share group consumer's setting (KIP-932), not a consumer group's"),
	na(Consumer, "share.acquire.mode", TypeString, "a share group consumer's setting (KIP-932), not a consumer group's"),

	// Both.
	na(Both, "bootstrap.servers", TypeList, connection),
	na(Both, "client.id", TypeString, connection),
	na(Both, "security.protocol", TypeString, connection),
	r(Both, "bootstrap.resolve.timeout.ms", TypeLong, "franz-go resolves a seed at every dial and has no time limit on resolving the bootstrap list"),
	r(Both, "client.dns.lookup", TypeString, "franz-go dials every address a name resolves to (Kafka's use_all_dns_ips) and has no other mode"),
	na(Producer, "client.rack", TypeString, ownPartition+"; the producer's client.rack only serves rack-aware partitioning"),
	na(Both, "config.providers", TypeList, "the configuration file reads files and the environment itself (password_file, password_env)"),
	m(Both, "connections.max.idle.ms", TypeLong, "unset, franz-go's 30 s", "ConnIdleTimeout").With(Plain{Min: 1, Why: "franz-go always closes idle connections", DefaultDoc: "unset: franz-go's 30000", Values: "100 … 900000 (franz-go)", Doc: "an idle connection is closed after this", Example: int64(540000), Build: millis(kgo.ConnIdleTimeout)}),
	m(Both, "enable.metrics.push", TypeBoolean, "false: DisableClientMetrics (KIP-714)", "DisableClientMetrics").With(Plain{Default: true, Doc: "false: the client does not send its metrics to the broker (KIP-714)", Example: false, Build: when(false, kgo.DisableClientMetrics)}),
	na(Both, "interceptor.classes", TypeList, javaClass),
	r(Both, "metadata.cluster.check.enable", TypeBoolean, "franz-go does not compare the cluster id of the brokers it reaches with the one it first saw"),
	m(Producer, "metadata.max.age.ms", TypeLong, "", "MetadataMaxAge").With(metadataMaxAge),
	m(Consumer, "metadata.max.age.ms", TypeLong, "", "MetadataMaxAge").With(metadataMaxAge),
	r(Both, "metadata.recovery.rebootstrap.trigger.ms", TypeLong, "franz-go re-bootstraps from the seeds when no known broker answers, with no time setting"),
	r(Both, "metadata.recovery.strategy", TypeString, "franz-go always re-bootstraps from the seeds when no known broker answers (Kafka's rebootstrap); it cannot be turned off"),
	na(Both, "metric.reporters", TypeList, javaMetrics),
	na(Both, "metrics.num.samples", TypeInt, javaMetrics),
	na(Both, "metrics.recording.level", TypeString, javaMetrics),
	na(Both, "metrics.sample.window.ms", TypeLong, javaMetrics),
	r(Both, "receive.buffer.bytes", TypeInt, "franz-go sets no socket buffer size: the kernel's (auto-tuned) applies"),
	r(Both, "send.buffer.bytes", TypeInt, "franz-go sets no socket buffer size: the kernel's (auto-tuned) applies"),
	na(Both, "reconnect.backoff.max.ms", TypeLong, ownBackoff),
	na(Both, "reconnect.backoff.ms", TypeLong, ownBackoff),
	na(Both, "retry.backoff.max.ms", TypeLong, ownBackoff),
	na(Both, "retry.backoff.ms", TypeLong, ownBackoff),
	m(Consumer, "request.timeout.ms", TypeInt, "franz-go's request timeout is added to a request's own timeout (a fetch's fetch.max.wait.ms, a join's rebalance timeout); unset, franz-go's 10 s, Java's default being 30 s", "RequestTimeoutOverhead").With(Plain{
		Min: 100, Max: 900000, Why: "franz-go", DefaultDoc: "unset: franz-go's 10000",
		Doc:     "how long the consumer waits for a broker's answer beyond the request's own timeout (a fetch's {fetch.max.wait.ms}, a join's rebalance timeout) before it closes the connection and retries ({kgo.RequestTimeoutOverhead}); Java's default is 30000",
		Example: int64(30000), Build: millis(kgo.RequestTimeoutOverhead)}),
	na(Both, "security.providers", TypeString, javaClass),
	r(Both, "socket.connection.setup.timeout.ms", TypeLong, "kgo.DialTimeout applies only to franz-go's own dialer; connections with kafka.tls use the exporter's, which it would not reach"),
	r(Both, "socket.connection.setup.timeout.max.ms", TypeLong, "franz-go has no connect timeout that grows with failures"),
}, security()...))

// security are the ssl.* and sasl.* properties: the kafka block's.
func security() []Property {
	names := []struct {
		name string
		typ  Type
	}{
		{"sasl.client.callback.handler.class", TypeClass},
		{"sasl.jaas.config", TypePassword},
		{"sasl.kerberos.kinit.cmd", TypeString},
		{"sasl.kerberos.min.time.before.relogin", TypeLong},
		{"sasl.kerberos.service.name", TypeString},
		{"sasl.kerberos.ticket.renew.jitter", TypeDouble},
		{"sasl.kerberos.ticket.renew.window.factor", TypeDouble},
		{"sasl.login.callback.handler.class", TypeClass},
		{"sasl.login.class", TypeClass},
		{"sasl.login.connect.timeout.ms", TypeInt},
		{"sasl.login.read.timeout.ms", TypeInt},
		{"sasl.login.refresh.buffer.seconds", TypeShort},
		{"sasl.login.refresh.min.period.seconds", TypeShort},
		{"sasl.login.refresh.window.factor", TypeDouble},
		{"sasl.login.refresh.window.jitter", TypeDouble},
		{"sasl.login.retry.backoff.max.ms", TypeLong},
		{"sasl.login.retry.backoff.ms", TypeLong},
		{"sasl.mechanism", TypeString},
		{"sasl.oauthbearer.allow.unverified.audience", TypeBoolean},
		{"sasl.oauthbearer.allow.unverified.issuer", TypeBoolean},
		{"sasl.oauthbearer.assertion.algorithm", TypeString},
		{"sasl.oauthbearer.assertion.claim.aud", TypeString},
		{"sasl.oauthbearer.assertion.claim.exp.seconds", TypeInt},
		{"sasl.oauthbearer.assertion.claim.iss", TypeString},
		{"sasl.oauthbearer.assertion.claim.jti.include", TypeBoolean},
		{"sasl.oauthbearer.assertion.claim.nbf.seconds", TypeInt},
		{"sasl.oauthbearer.assertion.claim.sub", TypeString},
		{"sasl.oauthbearer.assertion.file", TypeString},
		{"sasl.oauthbearer.assertion.private.key.file", TypeString},
		{"sasl.oauthbearer.assertion.private.key.passphrase", TypePassword},
		{"sasl.oauthbearer.assertion.template.file", TypeString},
		{"sasl.oauthbearer.client.credentials.client.id", TypeString},
		{"sasl.oauthbearer.client.credentials.client.secret", TypePassword},
		{"sasl.oauthbearer.clock.skew.seconds", TypeInt},
		{"sasl.oauthbearer.expected.audience", TypeList},
		{"sasl.oauthbearer.expected.issuer", TypeString},
		{"sasl.oauthbearer.header.urlencode", TypeBoolean},
		{"sasl.oauthbearer.jwks.endpoint.refresh.ms", TypeLong},
		{"sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms", TypeLong},
		{"sasl.oauthbearer.jwks.endpoint.retry.backoff.ms", TypeLong},
		{"sasl.oauthbearer.jwks.endpoint.url", TypeString},
		{"sasl.oauthbearer.jwt.retriever.class", TypeClass},
		{"sasl.oauthbearer.jwt.validator.class", TypeClass},
		{"sasl.oauthbearer.scope", TypeString},
		{"sasl.oauthbearer.scope.claim.name", TypeString},
		{"sasl.oauthbearer.sub.claim.name", TypeString},
		{"sasl.oauthbearer.token.endpoint.url", TypeString},
		{"ssl.cipher.suites", TypeList},
		{"ssl.enabled.protocols", TypeList},
		{"ssl.endpoint.identification.algorithm", TypeString},
		{"ssl.engine.factory.class", TypeClass},
		{"ssl.key.password", TypePassword},
		{"ssl.keymanager.algorithm", TypeString},
		{"ssl.keystore.certificate.chain", TypePassword},
		{"ssl.keystore.key", TypePassword},
		{"ssl.keystore.location", TypeString},
		{"ssl.keystore.password", TypePassword},
		{"ssl.keystore.type", TypeString},
		{"ssl.protocol", TypeString},
		{"ssl.provider", TypeString},
		{"ssl.secure.random.implementation", TypeString},
		{"ssl.trustmanager.algorithm", TypeString},
		{"ssl.truststore.certificates", TypePassword},
		{"ssl.truststore.location", TypeString},
		{"ssl.truststore.password", TypePassword},
		{"ssl.truststore.type", TypeString},
	}
	ps := make([]Property, len(names))
	for i, n := range names {
		ps[i] = na(Both, n.name, n.typ, connection)
	}
	return ps
}

func sorted(ps []Property) []Property {
	sort.SliceStable(ps, func(i, j int) bool {
		if ps[i].Name != ps[j].Name {
			return ps[i].Name < ps[j].Name
		}
		return ps[i].In < ps[j].In
	})
	return ps
}

// Lookup finds the property name of the block ("producer" or "consumer").
func Lookup(block, name string) (Property, bool) {
	in := clientsOf(block)
	for _, p := range Properties {
		if p.Name == name && p.In&in != 0 {
			return p, true
		}
	}
	return Property{}, false
}

// Secret reports whether key is a property Kafka types PASSWORD, or a
// path that ends in one (producer.ssl.key.password, the YAML's): its value
// is a secret wherever it is written, whatever its name says.
func Secret(key string) bool {
	for _, p := range Properties {
		if p.Type == TypePassword && (key == p.Name || strings.HasSuffix(key, "."+p.Name)) {
			return true
		}
	}
	return false
}
