// Package kafkaprops classifies every property of Apache Kafka's Java
// ProducerConfig and ConsumerConfig (kafka-clients 4.4.0): mapped onto a
// franz-go option under the probe's producer: or consumer: block, refused
// because franz-go cannot do what it asks, or not applicable to a probe.
// It is data only, so that the configuration's strict decoding can name
// the reason of a refusal before any client exists; kclient builds the
// options and its tests read each mapped one back from a built client.
package kafkaprops

import "sort"

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

// Property is one Kafka client property.
type Property struct {
	In    Clients
	Name  string
	Class Class
	// Options are the franz-go options a mapped property sets, by the
	// names (*kgo.Client).OptValue looks them up by.
	Options []string
	// Note is, for a mapped property, how it maps where it is not one to
	// one; for the others, why not.
	Note string
}

// Block is the configuration block ("producer" or "consumer") of c.
func (c Clients) Block() string {
	if c == Consumer {
		return "consumer"
	}
	return "producer"
}

func m(in Clients, name, note string, opts ...string) Property {
	return Property{In: in, Name: name, Class: Mapped, Options: opts, Note: note}
}

func r(in Clients, name, why string) Property {
	return Property{In: in, Name: name, Class: Refused, Note: why}
}

func na(in Clients, name, why string) Property {
	return Property{In: in, Name: name, Class: NotApplicable, Note: why}
}

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
	m(Producer, "acks", "NoAck / LeaderAck / AllISRAcks", "RequiredAcks"),
	m(Producer, "batch.size", "raised to fit one record: Kafka sends a larger record in a batch of its own, franz-go would fail it", "ProducerBatchMaxBytes"),
	m(Producer, "buffer.memory", "franz-go also caps buffered records (10,000 by default), Kafka bytes only: MaxBufferedRecords is buffer.memory / record_size", "MaxBufferedBytes", "MaxBufferedRecords"),
	na(Producer, "buffer.memory.allocation.strategy", "chooses how the Java producer pools its buffer memory; Go's allocator and franz-go's pools have no such choice"),
	m(Producer, "compression.type", "", "ProducerBatchCompression"),
	m(Producer, "compression.gzip.level", "with compression.type gzip: CompressionCodec.WithLevel; unset, gzip's default level", "ProducerBatchCompression"),
	m(Producer, "compression.lz4.level", "with compression.type lz4: CompressionCodec.WithLevel (pierrec/lz4 levels 1 to 9, Java's 10 to 17 have none); unset, franz-go's fastest level", "ProducerBatchCompression"),
	m(Producer, "compression.zstd.level", "with compression.type zstd: CompressionCodec.WithLevel (zstd.EncoderLevelFromZstd: klauspost/compress has 4 speeds, a level picks the nearest); unset, its default", "ProducerBatchCompression"),
	m(Producer, "delivery.timeout.ms", "", "RecordDeliveryTimeout"),
	m(Producer, "enable.idempotence", "false: DisableIdempotentWrite", "DisableIdempotentWrite"),
	na(Producer, "key.serializer", ownBytes),
	na(Producer, "value.serializer", ownBytes),
	m(Producer, "linger.ms", "", "ProducerLinger"),
	r(Producer, "max.block.ms", "franz-go blocks a produce on a full buffer until the record's context ends; it has no time limit of its own (the probe counts a record that waits too long as behind_schedule)"),
	m(Producer, "max.in.flight.requests.per.connection", "only without idempotence; with it franz-go uses 5, as Kafka", "MaxProduceRequestsInflightPerBroker"),
	m(Producer, "max.request.size", "franz-go's limit on any request to a broker; unset, franz-go's 100 MiB (Kafka's socket.request.max.bytes)", "BrokerMaxWriteBytes"),
	na(Producer, "metadata.max.idle.ms", "forgets topics a Java producer stopped writing; the probe writes its one topic all the time"),
	na(Producer, "partitioner.adaptive.partitioning.enable", ownPartition),
	na(Producer, "partitioner.availability.timeout.ms", ownPartition),
	na(Producer, "partitioner.class", ownPartition),
	na(Producer, "partitioner.ignore.keys", ownPartition),
	na(Producer, "partitioner.rack.aware", ownPartition+"; rack-aware partitioning (kgo.RackAwarePartitioning) would skip partitions"),
	m(Producer, "request.timeout.ms", "", "ProduceRequestTimeout"),
	m(Producer, "retries", "the default, 2147483647, leaves franz-go retrying until delivery.timeout.ms", "RecordRetries"),
	m(Producer, "transaction.timeout.ms", "with transactional.id", "TransactionTimeout"),
	r(Producer, "transaction.two.phase.commit.enable", "franz-go has no two-phase commit participation (KIP-939)"),
	m(Producer, "transactional.id", "suffixed -<probe>-<host name>: each probe of each exporter has its own; the probe's producer then writes in transactions of transaction.duration.ms (its own key, as ProducerPerformance's --transaction-duration-ms), aborting a share transaction.abort.ratio of them", "TransactionalID"),

	// Consumer.
	m(Consumer, "allow.auto.create.topics", "true: AllowAutoTopicCreation; franz-go's default, and so the probe's, is false, Kafka's true: the probe creates its topic itself (create_topic)", "AllowAutoTopicCreation"),
	m(Consumer, "auto.commit.interval.ms", "the probe's own commit interval: it commits synchronously after processing, to time the commits (DisableAutoCommit)"),
	m(Consumer, "auto.offset.reset", "a partition without a commit starts at its start (ConsumeStartOffset): the probe commits the end of every partition it finds at start, so only one added later has none", "ConsumeResetOffset"),
	m(Consumer, "check.crcs", "false: DisableFetchCRCValidation", "DisableFetchCRCValidation"),
	m(Consumer, "client.rack", "Rack (fetch from the closest replica, KIP-392) and, for the range and sticky balancers of the classic protocol, BalanceRacks (rack-aware assignment, KIP-881)", "Rack", "BalanceRacks"),
	r(Consumer, "default.api.timeout.ms", "franz-go bounds a blocking call by the context its caller passes, not by a client setting"),
	na(Consumer, "enable.auto.commit", "always off: the probe commits synchronously after processing, to time the commits"),
	na(Consumer, "exclude.internal.topics", "the probe consumes its one topic by name, never by pattern"),
	m(Consumer, "fetch.max.bytes", "", "FetchMaxBytes"),
	m(Consumer, "fetch.max.wait.ms", "", "FetchMaxWait"),
	m(Consumer, "fetch.min.bytes", "", "FetchMinBytes"),
	m(Consumer, "group.id", "", "ConsumerGroup"),
	m(Consumer, "group.instance.id", "static membership (KIP-345); with several consumers each member's id ends in -<member>", "InstanceID"),
	m(Consumer, "group.protocol", "consumer: ServerSideBalancer (KIP-848; franz-go falls back to classic when the broker lacks it, kafka_bench_consumer_group_protocol_info shows which one runs); classic: the client-side balancers of partition.assignment.strategy", "ServerSideBalancer", "Balancers"),
	m(Consumer, "group.remote.assignor", "with group.protocol consumer: uniform (StickyBalancer) or range (RangeBalancer); franz-go names the broker's assignor from its first balancer; unset, uniform", "Balancers"),
	m(Consumer, "heartbeat.interval.ms", "", "HeartbeatInterval"),
	na(Consumer, "internal.throw.on.fetch.stable.offset.unsupported", "an internal setting of the Java consumer for Kafka Streams"),
	m(Consumer, "isolation.level", "read_committed: ReadCommitted; read_uncommitted: ReadUncommitted", "FetchIsolationLevel"),
	na(Consumer, "key.deserializer", ownBytes),
	na(Consumer, "value.deserializer", ownBytes),
	m(Consumer, "max.partition.fetch.bytes", "", "FetchMaxPartitionBytes"),
	m(Consumer, "max.poll.interval.ms", "the rebalance timeout a member sends when it joins, as the Java consumer does; franz-go has no poll deadline (the probe polls all the time); unset, franz-go's 60 s", "RebalanceTimeout"),
	m(Consumer, "max.poll.records", "PollRecords(ctx, max.poll.records) on every poll"),
	m(Consumer, "partition.assignment.strategy", "with group.protocol classic: range (RangeBalancer), roundrobin (RoundRobinBalancer), sticky (StickyBalancer), cooperative-sticky (CooperativeStickyBalancer), or their Java class names, comma-separated in order of preference; unset, cooperative-sticky (franz-go's default; Java's is range, cooperative-sticky)", "Balancers"),
	m(Consumer, "session.timeout.ms", "", "SessionTimeout"),
	na(Consumer, "share.acknowledgement.mode", "a share group consumer's setting (KIP-932), not a consumer group's"),
	na(Consumer, "share.acquire.mode", "a share group consumer's setting (KIP-932), not a consumer group's"),

	// Both.
	na(Both, "bootstrap.servers", connection),
	na(Both, "client.id", connection),
	na(Both, "security.protocol", connection),
	r(Both, "bootstrap.resolve.timeout.ms", "franz-go resolves a seed at every dial and has no time limit on resolving the bootstrap list"),
	r(Both, "client.dns.lookup", "franz-go dials every address a name resolves to (Kafka's use_all_dns_ips) and has no other mode"),
	na(Producer, "client.rack", ownPartition+"; the producer's client.rack only serves rack-aware partitioning"),
	na(Both, "config.providers", "the configuration file reads files and the environment itself (password_file, password_env)"),
	m(Both, "connections.max.idle.ms", "unset, franz-go's 30 s", "ConnIdleTimeout"),
	m(Both, "enable.metrics.push", "false: DisableClientMetrics (KIP-714)", "DisableClientMetrics"),
	na(Both, "interceptor.classes", javaClass),
	r(Both, "metadata.cluster.check.enable", "franz-go does not compare the cluster id of the brokers it reaches with the one it first saw"),
	m(Producer, "metadata.max.age.ms", "", "MetadataMaxAge"),
	m(Consumer, "metadata.max.age.ms", "", "MetadataMaxAge"),
	r(Both, "metadata.recovery.rebootstrap.trigger.ms", "franz-go re-bootstraps from the seeds when no known broker answers, with no time setting"),
	r(Both, "metadata.recovery.strategy", "franz-go always re-bootstraps from the seeds when no known broker answers (Kafka's rebootstrap); it cannot be turned off"),
	na(Both, "metric.reporters", javaMetrics),
	na(Both, "metrics.num.samples", javaMetrics),
	na(Both, "metrics.recording.level", javaMetrics),
	na(Both, "metrics.sample.window.ms", javaMetrics),
	r(Both, "receive.buffer.bytes", "franz-go sets no socket buffer size: the kernel's (auto-tuned) applies"),
	r(Both, "send.buffer.bytes", "franz-go sets no socket buffer size: the kernel's (auto-tuned) applies"),
	na(Both, "reconnect.backoff.max.ms", ownBackoff),
	na(Both, "reconnect.backoff.ms", ownBackoff),
	na(Both, "retry.backoff.max.ms", ownBackoff),
	na(Both, "retry.backoff.ms", ownBackoff),
	r(Consumer, "request.timeout.ms", "franz-go has no one timeout for every request: each waits for its own timeout (fetch.max.wait.ms, session.timeout.ms) plus kgo.RequestTimeoutOverhead"),
	na(Both, "security.providers", javaClass),
	r(Both, "socket.connection.setup.timeout.ms", "kgo.DialTimeout applies only to franz-go's own dialer; connections with kafka.tls use the exporter's, which it would not reach"),
	r(Both, "socket.connection.setup.timeout.max.ms", "franz-go has no connect timeout that grows with failures"),
}, security()...))

// security are the ssl.* and sasl.* properties: the kafka block's.
func security() []Property {
	names := []string{"sasl.client.callback.handler.class", "sasl.jaas.config", "sasl.kerberos.kinit.cmd", "sasl.kerberos.min.time.before.relogin",
		"sasl.kerberos.service.name", "sasl.kerberos.ticket.renew.jitter", "sasl.kerberos.ticket.renew.window.factor", "sasl.login.callback.handler.class",
		"sasl.login.class", "sasl.login.connect.timeout.ms", "sasl.login.read.timeout.ms", "sasl.login.refresh.buffer.seconds",
		"sasl.login.refresh.min.period.seconds", "sasl.login.refresh.window.factor", "sasl.login.refresh.window.jitter", "sasl.login.retry.backoff.max.ms",
		"sasl.login.retry.backoff.ms", "sasl.mechanism", "sasl.oauthbearer.allow.unverified.audience", "sasl.oauthbearer.allow.unverified.issuer",
		"sasl.oauthbearer.assertion.algorithm", "sasl.oauthbearer.assertion.claim.aud", "sasl.oauthbearer.assertion.claim.exp.seconds", "sasl.oauthbearer.assertion.claim.iss",
		"sasl.oauthbearer.assertion.claim.jti.include", "sasl.oauthbearer.assertion.claim.nbf.seconds", "sasl.oauthbearer.assertion.claim.sub", "sasl.oauthbearer.assertion.file",
		"sasl.oauthbearer.assertion.private.key.file", "sasl.oauthbearer.assertion.private.key.passphrase", "sasl.oauthbearer.assertion.template.file", "sasl.oauthbearer.client.credentials.client.id",
		"sasl.oauthbearer.client.credentials.client.secret", "sasl.oauthbearer.clock.skew.seconds", "sasl.oauthbearer.expected.audience", "sasl.oauthbearer.expected.issuer",
		"sasl.oauthbearer.header.urlencode", "sasl.oauthbearer.jwks.endpoint.refresh.ms", "sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms", "sasl.oauthbearer.jwks.endpoint.retry.backoff.ms",
		"sasl.oauthbearer.jwks.endpoint.url", "sasl.oauthbearer.jwt.retriever.class", "sasl.oauthbearer.jwt.validator.class", "sasl.oauthbearer.scope",
		"sasl.oauthbearer.scope.claim.name", "sasl.oauthbearer.sub.claim.name", "sasl.oauthbearer.token.endpoint.url", "ssl.cipher.suites",
		"ssl.enabled.protocols", "ssl.endpoint.identification.algorithm", "ssl.engine.factory.class", "ssl.key.password",
		"ssl.keymanager.algorithm", "ssl.keystore.certificate.chain", "ssl.keystore.key", "ssl.keystore.location",
		"ssl.keystore.password", "ssl.keystore.type", "ssl.protocol", "ssl.provider",
		"ssl.secure.random.implementation", "ssl.trustmanager.algorithm", "ssl.truststore.certificates", "ssl.truststore.location",
		"ssl.truststore.password", "ssl.truststore.type"}
	ps := make([]Property, len(names))
	for i, n := range names {
		ps[i] = na(Both, n, connection)
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
	in := Producer
	if block == "consumer" {
		in = Consumer
	}
	for _, p := range Properties {
		if p.Name == name && p.In&in != 0 {
			return p, true
		}
	}
	return Property{}, false
}
