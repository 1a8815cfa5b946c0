package config

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"

	"github.com/kafka-bench/kafka_bench_exporter/internal/fixtures"
)

// Every invalid-*.yml in testdata must fail with exactly this one line.
var invalidFiles = map[string]string{
	"invalid-catch-up-bad-from.yml":                    "probe \"p1\": catch_up[0].from = \"yesterday\": must be start or a duration > 0 such as 1h (the records written that long ago)",
	"invalid-catch-up-bytes-per-second-negative.yml":   "probe \"p1\": catch_up[0].max_bytes_per_second = -1: must be a number >= 0 (0 = no cap)",
	"invalid-catch-up-duplicate-from.yml":              "probe \"p1\": catch_up[1].from = \"1h\": listed twice: each window of a probe needs its own start (the window label)",
	"invalid-catch-up-fetch-max-bytes-large.yml":       "probe \"p1\": catch_up[0].consumer.fetch.max.bytes = 104857601: must be between 1 and 104857600 (franz-go's response limit)",
	"invalid-catch-up-fetch-max-wait-short.yml":        "probe \"p1\": catch_up[0].consumer.fetch.max.wait.ms = 5: must be >= 10 (franz-go)",
	"invalid-catch-up-fetch-min-bytes-zero.yml":        "probe \"p1\": catch_up[0].consumer.fetch.min.bytes = 0: must be >= 1",
	"invalid-catch-up-interval-not-above-duration.yml": "probe \"p1\": catch_up[0].interval = 1m: must exceed max_duration (1m), so reads never overlap",
	"invalid-catch-up-max-bytes-negative.yml":          "probe \"p1\": catch_up[0].max_bytes = -5: must be >= 0 (0 = no bound)",
	"invalid-catch-up-max-duration-zero.yml":           "probe \"p1\": catch_up[0].max_duration = 0s: must be > 0: a read must end",
	"invalid-catch-up-max-poll-records-zero.yml":       "probe \"p1\": catch_up[0].consumer.max.poll.records = 0: must be >= 1",
	"invalid-catch-up-max-records-negative.yml":        "probe \"p1\": catch_up[0].max_records = -1: must be >= 0 (0 = no bound)",
	"invalid-catch-up-partition-fetch-bytes-zero.yml":  "probe \"p1\": catch_up[0].consumer.max.partition.fetch.bytes = 0: must be >= 1",
	"invalid-catch-up-unknown-consumer-key.yml":        "probe \"p1\": catch_up[0].consumer.group.id = \"x\": unknown key (supported: fetch.max.bytes, fetch.max.wait.ms, fetch.min.bytes, max.partition.fetch.bytes, max.poll.records)",
	"invalid-catch-up-unknown-key.yml":                 "probe \"p1\": catch_up[0].max_seconds = 10: unknown key (supported: consumer, from, interval, max_bytes, max_bytes_per_second, max_duration, max_records)",
	"invalid-catch-up-zero-from.yml":                   "probe \"p1\": catch_up[0].from = \"0s\": must be start or a duration > 0 such as 1h (the records written that long ago)",
	"invalid-churn-duration-long.yml":                  "probe \"p1\": consumer.churn.duration = 2m: must be shorter than churn.interval (1m): the member joins again after it",
	"invalid-bad-assignment-strategy.yml":              "probe \"p1\": consumer.partition.assignment.strategy = \"range, fair\": unknown assignor \"fair\": must be a comma-separated list of range, roundrobin, sticky, cooperative-sticky (or their Java class names)",
	"invalid-bad-group-protocol.yml":                   "probe \"p1\": consumer.group.protocol = \"eager\": must be classic or consumer",
	"invalid-bad-isolation-level.yml":                  "probe \"p1\": consumer.isolation.level = \"read_latest\": must be read_uncommitted or read_committed",
	"invalid-bad-remote-assignor.yml":                  "probe \"p1\": consumer.group.remote.assignor = \"sticky\": must be uniform or range (the assignors franz-go can name)",
	"invalid-blank-group-instance-id.yml":              "probe \"p1\": consumer.group.instance.id = \"  \": must not be blank",
	"invalid-connections-idle-negative.yml":            "probe \"p1\": consumer.connections.max.idle.ms = -1: must be >= 1 (franz-go always closes idle connections)",
	"invalid-duplicate-assignor.yml":                   "probe \"p1\": consumer.partition.assignment.strategy = \"range,org.apache.kafka.clients.consumer.RangeAssignor\": assignor \"range\" listed twice",
	"invalid-gzip-level-bad.yml":                       "probe \"p1\": producer.compression.gzip.level = 0: must be -1 (gzip's default) or 1 \u2026 9",
	"invalid-lz4-level-above-franz.yml":                "probe \"p1\": producer.compression.lz4.level = 12: must be 1 \u2026 9 (franz-go's lz4 has no levels above 9; Kafka's go to 17)",
	"invalid-max-poll-interval-zero.yml":               "probe \"p1\": consumer.max.poll.interval.ms = 0: must be >= 1",
	"invalid-max-request-size-small.yml":               "probe \"p1\": producer.max.request.size = 1000: must be >= record_size + 128 (1152): a request holds at least one record's batch",
	"invalid-metadata-max-age-zero.yml":                "probe \"p1\": producer.metadata.max.age.ms = 0: must be >= 1",
	"invalid-refused-producer-property.yml":            "probe \"p1\": producer.max.block.ms = 60000: Kafka producer property franz-go cannot express: franz-go blocks a produce on a full buffer until the record's context ends; it has no time limit of its own (the probe counts a record that waits too long as behind_schedule)",
	"invalid-remote-assignor-classic.yml":              "probe \"p1\": consumer.group.remote.assignor = \"uniform\": applies only with group.protocol: consumer (the broker assigns); with classic, set partition.assignment.strategy",
	"invalid-strategy-with-consumer-protocol.yml":      "probe \"p1\": consumer.partition.assignment.strategy = \"cooperative-sticky\": must not be set with group.protocol: consumer (the broker assigns; choose its assignor with group.remote.assignor), as in Kafka",
	"invalid-zstd-level-bad.yml":                       "probe \"p1\": producer.compression.zstd.level = 23: must be -131072 \u2026 22, as in Kafka",
	"invalid-transactional-without-idempotence.yml":    "probe \"p1\": producer.transactional.id = \"tx\": requires enable.idempotence (acks=all, retries > 0), as in Kafka",
	"invalid-abort-ratio-without-transactions.yml":     "probe \"p1\": producer.transaction.abort.ratio = 0.1: applies only with producer.transactional.id",
	"invalid-abort-ratio-above-one.yml":                "probe \"p1\": producer.transaction.abort.ratio = 1.5: must be between 0 and 1",
	"invalid-transaction-timeout-below-duration.yml":   "probe \"p1\": producer.transaction.timeout.ms = 5000: must be above transaction.duration.ms (5000): the broker would abort every transaction",
	"invalid-transaction-duration-zero.yml":            "probe \"p1\": producer.transaction.duration.ms = 0: must be >= 1",
	"invalid-transactional-id-blank.yml":               "probe \"p1\": producer.transactional.id = \"  \": must not be blank",
	"invalid-acks0-idempotence.yml":                    "probe \"p1\": producer.enable.idempotence = true: requires acks=all; set enable.idempotence: false to use acks \"0\"",
	"invalid-acks1-default-idempotence-explicit.yml":   "probe \"p1\": producer.enable.idempotence = true: requires acks=all; set enable.idempotence: false to use acks \"1\"",
	"invalid-bad-acks.yml":                             "probe \"p1\": producer.acks = \"2\": must be one of \"0\", \"1\", \"all\" (or \"-1\")",
	"invalid-bad-compression.yml":                      "probe \"p1\": producer.compression.type = \"brotli\": must be one of none, gzip, snappy, lz4, zstd",
	"invalid-bad-disk-regex.yml":                       "host.disks = \"(sd\": invalid regex: error parsing regexp: missing closing ): `(sd`",
	"invalid-round-interval-long.yml":                  "probe \"p1\": round_interval = 1m: must be <= 10s",
	"invalid-bad-grace-period.yml":                     "probe \"p1\": loss_grace_period = \"soon\": must be a duration such as 500ms, 30s or 5m",
	"invalid-bad-interface-regex.yml":                  "host.interfaces = \"[eth\": invalid regex: error parsing regexp: missing closing ]: `[eth`",
	"invalid-bad-offset-reset.yml":                     "probe \"p1\": consumer.auto.offset.reset = \"none\": must be earliest or latest",
	"invalid-bad-probe-name.yml":                       "probe \"Acks 1\": name = \"Acks 1\": must match [a-z0-9_-]+ (it becomes the probe label)",
	"invalid-bad-yaml.yml":                             "invalid YAML: yaml: line 1: did not find expected '-' indicator",
	"invalid-batch-size-zero.yml":                      "probe \"p1\": producer.batch.size = 0: must be > 0 (franz-go always batches; Kafka's 0 means one record per batch)",
	"invalid-buffer-memory-below-record.yml":           "probe \"p1\": producer.buffer.memory = 1024: must be >= record_size (2048)",
	"invalid-consumers-zero.yml":                       "probe \"p1\": consumer.consumers = 0: must be between 1 and 256",
	"invalid-delivery-timeout-short.yml":               "probe \"p1\": producer.delivery.timeout.ms = 1000: must be >= linger.ms + request.timeout.ms (30005), as in Kafka",
	"invalid-duplicate-probe.yml":                      "probe \"p1\": name = \"p1\": duplicate probe name",
	"invalid-empty-broker.yml":                         "kafka.brokers = \"\": empty broker address",
	"invalid-idempotence-inflight.yml":                 "probe \"p1\": producer.max.in.flight.requests.per.connection = 6: must be <= 5 with enable.idempotence",
	"invalid-linger-negative.yml":                      "probe \"p1\": producer.linger.ms = -1: must be >= 0",
	"invalid-linger-not-integer.yml":                   "probe \"p1\": producer.linger.ms = \"five\": must be an integer",
	"invalid-max-poll-records-zero.yml":                "probe \"p1\": consumer.max.poll.records = 0: must be >= 1",
	"invalid-consumer-request-timeout-short.yml":       "probe \"p1\": consumer.request.timeout.ms = 50: must be 100 … 900000 (franz-go)",
	"invalid-multi-document.yml":                       "invalid YAML: line 3: a second document (---): a configuration file is one YAML document",
	"invalid-missing-probe-name.yml":                   "probes[0]: name = \"\": every probe needs a name",
	"invalid-negative-rate.yml":                        "probe \"p1\": rate = -5: must be a number >= 0 (0 = as fast as possible)",
	"invalid-rate-above-max.yml":                       "probe \"p1\": rate = 1e+25: must be <= 1e+07 records/s",
	"invalid-rate-below-min.yml":                       "probe \"p1\": rate = 1e-320: must be 0 or >= 1e-09 records/s: slower, the time between two records does not fit a duration",
	"invalid-record-size-above-max.yml":                "probe \"p1\": record_size = 104857600: must be <= 104856576",
	"invalid-probes-not-list.yml":                      "probes = {...}: must be a list",
	"invalid-rate-not-number.yml":                      "probe \"p1\": rate = \"fast\": must be a number",
	"invalid-record-size-below-header.yml":             "probe \"p1\": record_size = 10: must be >= 36, the probe header size",
	"invalid-same-topic.yml":                           "probe \"p2\": topic = \"t\": already used by probe \"p1\": each probe needs its own topic, or their sequence numbers collide",
	"invalid-unknown-probe-key.yml":                    "probe \"p1\": ratee = 10: unknown key (supported: capacity, catch_up, consumer, create_topic, lag_interval, loss_grace_period, name, payload, producer, rate, record_size, replica, round_interval, topic)",
	"invalid-unknown-producer-key.yml":                 "probe \"p1\": producer.linger.mss = 5: unknown key (supported: acks, batch.size, buffer.memory, compression.gzip.level, compression.lz4.level, compression.type, compression.zstd.level, connections.max.idle.ms, delivery.timeout.ms, enable.idempotence, enable.metrics.push, linger.ms, max.in.flight.requests.per.connection, max.request.size, metadata.max.age.ms, request.timeout.ms, retries, transaction.abort.ratio, transaction.duration.ms, transaction.timeout.ms, transactional.id)",
	"invalid-payload-bad-kind.yml":                     "probe \"p1\": payload.kind = \"zeros\": must be one of random_letters, random_bytes, file",
	"invalid-payload-file-missing.yml":                 "probe \"p1\": payload.file = \"no-such-payload.txt\": cannot read: no such file or directory",
	"invalid-payload-no-entries.yml":                   "probe \"p1\": payload.file = \"payload-delimiters-only.txt\": holds no entries (split at payload.delimiter \"\\n\")",
	"invalid-payload-no-file.yml":                      "probe \"p1\": payload.file = \"\": payload.kind file needs a file of entries",
	"invalid-payload-file-without-kind.yml":            "probe \"p1\": payload.file = \"payload.txt\": is only read with payload.kind: file",
	"invalid-payload-empty-delimiter.yml":              "probe \"p1\": payload.delimiter = \"\": must not be empty",
	"invalid-unknown-payload-key.yml":                  "probe \"p1\": payload.kinds = \"random_bytes\": unknown key (supported: delimiter, file, kind)",
	"invalid-unknown-top-key.yml":                      "kafkaa = {...}: unknown key (supported: config_poll_interval, groups, host, kafka, probes)",
	"invalid-config-poll-interval-negative.yml":        "config_poll_interval = \"-5s\": must not be negative",
	"invalid-unsupported-consumer-property.yml":        "probe \"p1\": consumer.enable.auto.commit = true: Kafka consumer property not applicable to the probe: always off: the probe commits synchronously after processing, to time the commits",
	"invalid-unsupported-producer-property.yml":        "probe \"p1\": producer.partitioner.class = \"org.example.P\": Kafka producer property not applicable to the probe: the probe chooses every record's partition itself, round-robin over all of them (kgo.ManualPartitioner), so that every partition and every leader is measured",
	"invalid-zero-partitions.yml":                      "probe \"p1\": create_topic.partitions = 0: must be >= 1",
	"invalid-leader-spread-without-create.yml":         "probe \"p1\": create_topic.leader_on_every_broker = true: requires create_topic.enabled: the probe only rearranges a topic it owns",
	"invalid-tls-not-enabled.yml":                      "kafka.tls.ca_file = \"ca.pem\": kafka.tls.enabled is false: set it to true to use TLS",
	"invalid-tls-ca-missing.yml":                       "kafka.tls.ca_file = \"no-such-ca.pem\": cannot read: no such file or directory",
	"invalid-tls-ca-not-pem.yml":                       "kafka.tls.ca_file = \"not-a-cert.pem\": no PEM certificate in the file",
	"invalid-tls-cert-without-key.yml":                 "kafka.tls.cert_file = \"client.pem\": needs kafka.tls.key_file, the client certificate's key",
	"invalid-tls-bad-keypair.yml":                      "kafka.tls.cert_file = \"not-a-cert.pem\": does not load with kafka.tls.key_file: tls: failed to find any PEM data in certificate input",
	"invalid-sasl-bad-mechanism.yml":                   "kafka.sasl.mechanism = \"SCRAM-SHA-1\": must be one of PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER, GSSAPI, AWS_MSK_IAM",
	"invalid-sasl-no-mechanism.yml":                    "kafka.sasl.username = \"alice\": kafka.sasl.mechanism is not set (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER, GSSAPI or AWS_MSK_IAM)",
	"invalid-sasl-no-username.yml":                     "kafka.sasl.username = \"\": must be set with mechanism SCRAM-SHA-512",
	"invalid-sasl-no-password.yml":                     "kafka.sasl.password = \"\": set exactly one of password, password_file, password_env",
	"invalid-sasl-two-passwords.yml":                   "kafka.sasl.password_file = \"empty-password.txt\": set exactly one of password, password_file, password_env (also set: password)",
	"invalid-sasl-password-file-missing.yml":           "kafka.sasl.password_file = \"no-such-password.txt\": cannot read: no such file or directory",
	"invalid-sasl-password-file-empty.yml":             "kafka.sasl.password_file = \"empty-password.txt\": the file is empty",
	"invalid-sasl-password-env-unset.yml":              "kafka.sasl.password_env = \"KAFKA_BENCH_TEST_UNSET_PASSWORD\": environment variable is not set or empty",
	"invalid-sasl-misspelt-password.yml":               "kafka.sasl.passwrd = <secret>: unknown key (supported: aws, kerberos, mechanism, oauth, password, password_env, password_file, username)",
	"invalid-tls-without-brokers.yml":                  "kafka.tls.enabled = true: needs kafka.brokers (or --kafka.brokers): without brokers the exporter starts its embedded cluster, which has no TLS",
	"invalid-sasl-without-brokers.yml":                 "kafka.sasl.mechanism = \"PLAIN\": needs kafka.brokers (or --kafka.brokers): without brokers the exporter starts its embedded cluster, which has no SASL",
	"invalid-unknown-sasl-key.yml":                     "kafka.sasl.mechanisms = <secret>: unknown key (supported: aws, kerberos, mechanism, oauth, password, password_env, password_file, username)",
	"invalid-capacity-interval-zero.yml":               "probe \"p1\": capacity.interval = 0s: must be > 0",
	"invalid-capacity-step-short.yml":                  "probe \"p1\": capacity.step_duration = 500ms: must be >= 1s, so each step has records enough for a p99",
	"invalid-capacity-start-rate-zero.yml":             "probe \"p1\": capacity.start_rate = 0: must be a number > 0",
	"invalid-capacity-start-rate-below-min.yml":        "probe \"p1\": capacity.start_rate = 1e-12: must be >= 1e-09 records/s: slower, the time between two records does not fit a duration",
	"invalid-capacity-growth-one.yml":                  "probe \"p1\": capacity.growth = 1: must be > 1 (the rate factor from one step to the next)",
	"invalid-capacity-max-rate-negative.yml":           "probe \"p1\": capacity.max_rate = -1: must be a number >= 0 (0 = no ceiling in records/s)",
	"invalid-capacity-max-bytes-negative.yml":          "probe \"p1\": capacity.max_bytes_per_second = -1: must be a number >= 0 (0 = no ceiling in bytes/s)",
	"invalid-capacity-no-ceiling.yml":                  "probe \"p1\": capacity.max_rate = 0: set max_rate or max_bytes_per_second: a capacity run needs a hard ceiling",
	"invalid-capacity-start-above-ceiling.yml":         "probe \"p1\": capacity.start_rate = 5000: above the ceiling of max_rate and max_bytes_per_second (1000 records/s)",
	"invalid-capacity-latency-slo-zero.yml":            "probe \"p1\": capacity.latency_slo = 0s: must be > 0",
	"invalid-capacity-too-many-steps.yml":              "probe \"p1\": capacity.growth = 1.01: the ramp from start_rate to the ceiling takes more than 100 steps",
	"invalid-capacity-interval-short.yml":              "probe \"p1\": capacity.interval = 1m: must exceed the longest run (a warm-up and 6 steps of 10s = 1m10s) by the 10 % jitter, so runs never overlap",
	"invalid-capacity-unknown-key.yml":                 "probe \"p1\": capacity.max_rps = 5: unknown key (supported: end_to_end_slo, growth, interval, latency_slo, max_bytes_per_second, max_rate, start_rate, step_duration, topic)",
	"invalid-capacity-bad-slo.yml":                     "probe \"p1\": capacity.latency_slo = \"fast\": must be a duration such as 500ms, 30s or 5m",
	"invalid-consumer-kind.yml":                        "probe \"p1\": consumer.kind = \"queue\": must be group or share",
	"invalid-share-release-fraction.yml":               "probe \"p1\": consumer.share.faults.release_fraction = 1.5: must be between 0 and 1",
	"invalid-share-fractions-sum.yml":                  "probe \"p1\": consumer.share.faults.reject_fraction = 0.6: must be at most 1 - release_fraction",
	"invalid-share-delivery-count-limit.yml":           "probe \"p1\": consumer.share.delivery.count.limit = 11: must be 0 (the group's) or between 2 and 10",
	"invalid-share-hold-interval.yml":                  "probe \"p1\": consumer.share.faults.hold_interval = 10s: must be longer than hold",
	"invalid-share-auto-offset-reset.yml":              "probe \"p1\": consumer.auto.offset.reset = \"latest\": applies to a consumer group only, not with consumer.kind share: a new share group starts at the topic's end, then reads on from where it is (the probe sets its share.auto.offset.reset to earliest)",
	"invalid-share-group-protocol.yml":                 "probe \"p1\": consumer.group.protocol = \"consumer\": applies to a consumer group only, not with consumer.kind share: a share group runs the share group protocol (KIP-932)",
	"invalid-share-remote-assignor.yml":                "probe \"p1\": consumer.group.remote.assignor = \"range\": applies to a consumer group only, not with consumer.kind share: the broker assigns a share group's partitions with its own assignor",
	"invalid-share-assignment-strategy.yml":            "probe \"p1\": consumer.partition.assignment.strategy = \"range\": applies to a consumer group only, not with consumer.kind share: the broker assigns a share group's partitions",
	"invalid-share-group-instance-id.yml":              "probe \"p1\": consumer.group.instance.id = \"pod-a\": applies to a consumer group only, not with consumer.kind share: a share group has no static membership",
	"invalid-share-max-poll-interval.yml":              "probe \"p1\": consumer.max.poll.interval.ms = 300000: applies to a consumer group only, not with consumer.kind share: a share group member has no rebalance timeout (a record not acknowledged within the record lock comes back)",
	"invalid-share-churn.yml":                          "probe \"p1\": consumer.churn.interval = 1m: consumer.churn applies to a consumer group only, not with consumer.kind share: its extra member joins a consumer group",
	"invalid-share-unknown-key.yml":                    "probe \"p1\": consumer.share.group = \"g\": unknown key (supported: delivery.count.limit, faults, group.id, record.lock.duration.ms)",
	"invalid-capacity-topic-taken.yml":                 "probe \"p1\": capacity.topic = \"kafka-bench-p1-capacity\": already used by probe \"p2\": the capacity run needs a topic of its own",
	"invalid-session-timeout-consumer-protocol.yml":    "probe \"p1\": consumer.session.timeout.ms = 30000: must not be set with group.protocol: consumer (the broker's group.consumer.session.timeout.ms applies), as in Kafka",
	"invalid-heartbeat-interval-consumer-protocol.yml": "probe \"p1\": consumer.heartbeat.interval.ms = 1000: must not be set with group.protocol: consumer (the broker's group.consumer.heartbeat.interval.ms applies), as in Kafka",
	"invalid-retries0-idempotence-explicit.yml":        "probe \"p1\": producer.enable.idempotence = true: requires retries > 0, as in Kafka; set enable.idempotence: false to use retries 0",
	"invalid-groups-bad-allow-regex.yml":               "groups.allow = \"orders-(.*\": invalid regex: error parsing regexp: missing closing ): `orders-(.*`",
	"invalid-groups-bad-granularity.yml":               "groups.granularity = \"member\": must be one of group, topic, partition",
	"invalid-groups-bad-topic-regex.yml":               "groups.topics_deny = \"[a-\": invalid regex: error parsing regexp: missing closing ]: `[a-`",
	"invalid-groups-interval-short.yml":                "groups.interval = 500ms: must be >= 1s",
	"invalid-groups-max-series-zero.yml":               "groups.max_series = 0: must be >= 1",
	"invalid-groups-stall-window-short.yml":            "groups.stall_window = 30s: must be >= groups.interval (1m): a window needs two polls",
	"invalid-groups-unknown-key.yml":                   "groups.enable = false: unknown key (supported: allow, deny, enabled, granularity, interval, max_series, probe_groups, stall_window, topics_allow, topics_deny)",
}

func TestInvalidFiles(t *testing.T) {
	fixtures.Invalid(t, invalidFiles, func(f string) error {
		cfg, err := Effective(f, Overrides{})
		if err == nil {
			_, err = ResolveFile(cfg, f)
		}
		return err
	}, func(t *testing.T, err error) {
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("error shows the password: %q", err)
		}
	})
}

func TestValidFull(t *testing.T) {
	cfg, err := LoadFile("testdata/valid-full.yml")
	if err != nil {
		t.Fatal(err)
	}
	if got := len(cfg.Probes); got != 2 {
		t.Fatalf("probes = %d, want 2", got)
	}
	p := cfg.Probes[0]
	checks := []struct {
		name      string
		got, want any
	}{
		{"brokers", cfg.Kafka.Brokers[0], "127.0.0.1:9092"},
		{"rate", p.Rate, 1000.0},
		{"record_size", p.RecordSize, 100},
		{"partitions", p.CreateTopic.Partitions, int32(6)},
		{"replication_factor", p.CreateTopic.ReplicationFactor, int16(3)},
		{"min.insync.replicas", p.CreateTopic.Configs["min.insync.replicas"], "2"},
		{"acks", p.Producer.Acks, "1"},
		{"idempotence", p.Producer.Idempotent(), false},
		{"fetch.max.wait.ms", p.Consumer.FetchMaxWaitMS, 500},
		{"host.interfaces", cfg.Host.Interfaces, "^(eth|en|lo)"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}

	d := cfg.Probes[1]
	defaults := []struct {
		name      string
		got, want any
	}{
		{"topic", d.Topic, "kafka-bench-defaults"},
		{"group.id", d.Consumer.GroupID, "kafka-bench-defaults"},
		{"rate", d.Rate, float64(DefaultRate)},
		{"record_size", d.RecordSize, DefaultRecordSize},
		{"acks", d.Producer.Acks, "all"},
		{"idempotence follows acks=all", d.Producer.Idempotent(), true},
		{"linger.ms", d.Producer.LingerMS, 5},
		{"batch.size", d.Producer.BatchSize, 16384},
		{"buffer.memory", d.Producer.BufferMemory, int64(33554432)},
		{"loss_grace_period", time.Duration(d.LossGracePeriod), 30 * time.Second},
		{"round_interval", time.Duration(d.RoundInterval), 200 * time.Millisecond},
		{"create_topic.enabled", d.CreateTopic.Enabled, true},
		{"replication_factor", d.CreateTopic.ReplicationFactor, int16(-1)},
		{"consumers", d.Consumer.Consumers, 1},
	}
	for _, c := range defaults {
		if c.got != c.want {
			t.Errorf("default %s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

// A key present with a zero value must win over a non-zero default.
func TestZeroValuesOverrideDefaults(t *testing.T) {
	cfg, err := Parse([]byte("probes:\n  - name: z\n    rate: 0\n    producer:\n      linger.ms: 0\n      acks: \"1\"\n    consumer:\n      enabled: false\nhost:\n  enabled: false\n"))
	if err != nil {
		t.Fatal(err)
	}
	p := cfg.Probes[0]
	if p.Rate != 0 || p.Producer.LingerMS != 0 || p.Consumer.Enabled || cfg.Host.Enabled {
		t.Errorf("zero values lost: rate=%v linger=%d consumer=%v host=%v", p.Rate, p.Producer.LingerMS, p.Consumer.Enabled, cfg.Host.Enabled)
	}
	if p.Producer.Idempotent() {
		t.Error("acks=1 without explicit enable.idempotence must disable idempotence")
	}
}

// Without enable.idempotence, retries 0 turns idempotence off, as in the
// Java producer (ProducerConfig: a conflicting setting wins over the
// default), so that the probe sends what a Java producer would.
func TestRetriesZeroDisablesDefaultIdempotence(t *testing.T) {
	cfg, err := Parse([]byte("probes:\n  - name: z\n    producer: {retries: 0}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Probes[0].Producer.Idempotent() {
		t.Error("retries 0 without explicit enable.idempotence must disable idempotence")
	}
}

func TestEmptyFileHasDefaultsAndNoProbes(t *testing.T) {
	cfg, err := Parse(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Probes) != 0 || !cfg.Host.Enabled || cfg.Kafka.ClientID != DefaultClientID {
		t.Errorf("unexpected empty-file config: %+v", cfg)
	}
}

// config_poll_interval: 60s by default, 0 turns polling off, negative is
// an error, with the same message whether it comes from the file or code.
func TestConfigPollInterval(t *testing.T) {
	cfg, err := Parse(nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := time.Duration(cfg.ConfigPollInterval); got != DefaultConfigPoll {
		t.Errorf("default config_poll_interval = %s, want %s", got, DefaultConfigPoll)
	}
	if cfg, err = Parse([]byte("config_poll_interval: 0\n")); err != nil || cfg.ConfigPollInterval != 0 {
		t.Errorf("config_poll_interval: 0 gave %v, %v; want 0 (off)", cfg, err)
	}
	cfg.ConfigPollInterval = model.Duration(-5 * time.Second)
	want := "config_poll_interval = -5s: must not be negative"
	if err := cfg.Validate(); err == nil || err.Error() != want {
		t.Errorf("Validate = %v, want %s", err, want)
	}
}

func TestMissingFile(t *testing.T) {
	if _, err := LoadFile(filepath.Join(t.TempDir(), "nope.yml")); !os.IsNotExist(err) {
		t.Errorf("err = %v, want not-exist", err)
	}
}

// FuzzParse: no input may panic the loader; an accepted config must validate again.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.yml")
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse(data)
		if err != nil {
			return
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("accepted config fails Validate: %v", err)
		}
	})
}

// payload: random letters by default; kind file reads the file relative to
// the configuration's directory, and record_size follows its longest entry.
func TestPayload(t *testing.T) {
	cfg, err := Parse([]byte("probes:\n  - name: d\n"))
	if err != nil {
		t.Fatal(err)
	}
	if k := cfg.Probes[0].Payload.Kind; k != PayloadRandomLetters {
		t.Errorf("default payload.kind = %q, want %q", k, PayloadRandomLetters)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "entries.txt"), []byte("a|bbbb||cc|"), 0o600); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "probes.yml")
	if err := os.WriteFile(file, []byte("probes:\n  - name: f\n    payload: {kind: file, file: entries.txt, delimiter: \"|\"}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := loadResolved(file)
	if err != nil {
		t.Fatal(err)
	}
	p := res.Config.Probes[0]
	if p.RecordSize != HeaderSize+4 {
		t.Errorf("record_size = %d, want %d (header + longest entry)", p.RecordSize, HeaderSize+4)
	}
	entries := res.Probes[0].Payload()
	var got []string
	for _, e := range entries {
		got = append(got, string(e))
	}
	if strings.Join(got, ",") != "a,bbbb,cc" {
		t.Errorf("entries = %q, want [a bbbb cc]", got)
	}
}

// TestHostAgentMode: an explicit probes: [] (or --no-probes) runs no probe,
// while an absent probes key still means the default probe.
func TestHostAgentMode(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	agent := write("agent.yml", "probes: []\nhost:\n  interfaces: \"^lo$\"\n")
	withProbe := write("probe.yml", "probes:\n  - name: p1\n")
	noKey := write("nokey.yml", "host:\n  enabled: true\n")
	rate := 5.0

	for _, c := range []struct {
		name      string
		file      string
		o         Overrides
		probes    int
		hostAgent bool
		err       string
	}{
		{"probes: []", agent, Overrides{}, 0, true, ""},
		{"no probes key: default probe", noKey, Overrides{}, 1, false, ""},
		{"no file: default probe", "", Overrides{}, 1, false, ""},
		{"--no-probes without a file", "", Overrides{NoProbes: true}, 0, true, ""},
		{"--no-probes with probes: []", agent, Overrides{NoProbes: true}, 0, true, ""},
		{"--no-probes and a file with probes", withProbe, Overrides{NoProbes: true}, 0, false,
			"--no-probes given, but " + withProbe + " defines probes: remove them (probes: []) or the flag"},
		{"--no-probes and --probe.rate", "", Overrides{NoProbes: true, ProbeRate: &rate}, 0, false,
			"--probe.rate given together with --no-probes: the host agent runs no probe"},
		{"probes: [] and --probe.rate", agent, Overrides{ProbeRate: &rate}, 0, false,
			"--probe.rate given, but " + agent + " sets probes: [] (host-agent mode): define the probe in the file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := Effective(c.file, c.o)
			if c.err != "" {
				if err == nil || err.Error() != c.err {
					t.Fatalf("err = %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(cfg.Probes) != c.probes || cfg.HostAgent() != c.hostAgent {
				t.Errorf("probes = %d, HostAgent = %v; want %d, %v", len(cfg.Probes), cfg.HostAgent(), c.probes, c.hostAgent)
			}
		})
	}
	// --config.check prints the mode back as it was written.
	cfg, err := LoadFile(agent)
	if err != nil {
		t.Fatal(err)
	}
	out, err := cfg.Marshal()
	if err != nil || !strings.Contains(string(out), "probes: []") {
		t.Errorf("Marshal = %q, %v; want probes: []", out, err)
	}
}

// TestDefaultDisksWholeDevices: the default host.disks counts each disk once.
func TestDefaultDisksWholeDevices(t *testing.T) {
	re := regexp.MustCompile(DefaultDisks)
	for name, want := range map[string]bool{
		"sda": true, "sdab": true, "vda": true, "xvdf": true, "nvme0n1": true, "nvme12n3": true,
		"sda1": false, "vda2": false, "xvdf1": false, "nvme0n1p1": false, "loop0": false, "dm-0": false, "zram0": false,
	} {
		if got := re.MatchString(name); got != want {
			t.Errorf("DefaultDisks matches %s: %v, want %v", name, got, want)
		}
	}
}

// TestPayloadPrintsAndLoadsAgain: what --config.check prints for a payload
// file with its default delimiter (a newline) loads again with the same
// delimiter, not an empty one.
func TestPayloadPrintsAndLoadsAgain(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "entries.txt"), []byte("a\nbb\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "probes.yml")
	if err := os.WriteFile(file, []byte("probes:\n  - name: f\n    payload: {kind: file, file: entries.txt}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := loadResolved(file)
	if err != nil {
		t.Fatal(err)
	}
	out, err := res.Config.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, out, 0o600); err != nil {
		t.Fatal(err)
	}
	again, err := loadResolved(file)
	if err != nil {
		t.Fatalf("the printout does not load again: %v\n%s", err, out)
	}
	if d := again.Config.Probes[0].Payload.Delimiter; d != "\n" {
		t.Errorf("delimiter after printing and loading = %q, want %q\n%s", d, "\n", out)
	}
}

// The --probe.rate flag takes any float, NaN and ±Inf included (the file's
// parser already refuses them): they must not pass as "not negative".
func TestRateNotFinite(t *testing.T) {
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), 1e17} {
		_, err := Effective("", Overrides{ProbeRate: &v})
		if err == nil {
			t.Errorf("--probe.rate=%v accepted", v)
			continue
		}
		if !strings.HasPrefix(err.Error(), `command line: probe "default": rate = `) {
			t.Errorf("--probe.rate=%v: %v", v, err)
		}
	}
	p := NewProbe("p1")
	p.Capacity = &Capacity{}
	p.Capacity.SetDefaults()
	p.Capacity.MaxRate = 1000
	for _, set := range []func(c *Capacity){
		func(c *Capacity) { c.StartRate = math.NaN() },
		func(c *Capacity) { c.MaxRate = math.NaN() },
		func(c *Capacity) { c.MaxRate = math.Inf(1) },
		func(c *Capacity) { c.Growth = math.NaN() },
		func(c *Capacity) { c.MaxBytesPerSecond = math.NaN() },
	} {
		q := p
		c := *p.Capacity
		set(&c)
		q.Capacity = &c
		q.Resolve()
		if err := q.Validate(); err == nil {
			t.Errorf("capacity %+v accepted", c)
		}
	}
}
