package spec

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/internal/fixtures"
)

// Every testdata/invalid-*.yml must fail with exactly this one line.
var invalidFiles = map[string]string{
	"invalid-hosts-ca-missing.yml":                "host \"kafka1\": http_config.tls_config.ca_file = \"testdata/no-such-ca.pem\": cannot read: no such file or directory",
	"invalid-hosts-basic-auth-no-password.yml":    "host \"kafka1\": http_config.basic_auth.password_file = \"\": must be set with basic_auth",
	"invalid-hosts-cert-without-key.yml":          "host \"kafka1\": http_config.tls_config.key_file = \"\": must be set with cert_file",
	"invalid-hosts-credentials-twice.yml":         "host \"kafka1\": http_config.basic_auth.username = \"prometheus\": the url carries credentials too: set them in one place",
	"invalid-hosts-proxy-twice.yml":               "host \"kafka1\": http_config.proxy_url = \"http://proxy.example:3128\": if proxy_from_environment is configured, proxy_url must not be configured",
	"invalid-hosts-tls-min-version.yml":           "host \"kafka1\": http_config.tls_config.min_version = \"TLS1.2\": must be one of TLS10, TLS11, TLS12 or TLS13",
	"invalid-hosts-tls-plain-url.yml":             "host \"kafka1\": http_config.tls_config = {...}: the url is http://: use https:// for TLS",
	"invalid-bad-duration.yml":                    "duration = \"soon\": must be a duration such as 500ms, 30s or 5m",
	"invalid-find-max-rate-no-capacity.yml":       "defaults: capacity = (none): find_max_rate needs a capacity block: start_rate, growth, max_rate or max_bytes_per_second, latency_slo",
	"invalid-find-max-rate-consume-only.yml":      "find_max_rate = true: consume_only does not produce: set one of them",
	"invalid-read-delay-without-consume-only.yml": "read_delay = 1m: applies to consume_only: the delay between a pre-filled topic's newest record and its read",
	"invalid-cold-without-consume-only.yml":       "cold = true: applies to consume_only: the page cache of a pre-filled topic is dropped before its read",
	"invalid-find-max-rate-num-records.yml":       "find_max_rate = true: each scenario runs its capacity ramp (capacity.step_duration per step): remove num_records and duration",
	"invalid-bad-yaml.yml":                        "invalid YAML: yaml: line 1: did not find expected ',' or ']'",
	"invalid-baseline-few-rounds.yml":             "baseline = \"a\": verdicts need rounds >= 3 (rounds = 2)",
	"invalid-baseline-unknown.yml":                "baseline = \"c\": no such scenario (scenarios: a, b)",
	"invalid-both-bounds.yml":                     "duration = 1m: num_records is set too: set exactly one",
	"invalid-config-broker-id-range.yml":          "scenario \"one-broker\": broker.99999999999.num.io.threads = 1: broker id 99999999999 is out of range",
	"invalid-config-key-bad-name.yml":             "scenario \"io\": broker.Num.IO.Threads = 1: \"Num.IO.Threads\" is not a Kafka configuration name (lower-case letters, digits, '.', '_' and '-')",
	"invalid-config-key-empty.yml":                "matrix: broker. = [...]: names no configuration: write broker.<name>, broker.<id>.<name> or topic.<name>",
	"invalid-config-value-list.yml":               "scenario \"lz4\": topic.compression.type = [...]: must be a single value (a string, number or boolean)",
	"invalid-config-value-null.yml":               "matrix: broker.num.io.threads = null: must be a single value (a string, number or boolean)",
	"invalid-consume-only-no-topic.yml":           "defaults: topic = \"\": consume_only reads an existing topic: name it in defaults or in the scenario",
	"invalid-defaults-invalid.yml":                "scenario \"acks=1\": record_size = 10: must be >= 36, the probe header size",
	"invalid-duplicate-scenario.yml":              "scenario \"a\": name = \"a\": duplicate scenario name",
	"invalid-empty-broker.yml":                    "kafka.brokers = \"\": empty broker address",
	"invalid-empty.yml":                           "the bench file is empty: it needs num_records or duration, and probe settings under defaults",
	"invalid-matrix-ambiguous-key.yml":            "matrix: enabled = [...]: ambiguous: say consumer.enabled or create_topic.enabled",
	"invalid-matrix-bad-value.yml":                "matrix: partitions = \"x\": must be an integer",
	"invalid-matrix-duplicate-value.yml":          "matrix: acks = \"1\": listed twice",
	"invalid-matrix-empty-list.yml":               "matrix: acks = [...]: must list at least one value",
	"invalid-matrix-not-list.yml":                 "matrix: partitions = 3: must be a list of values",
	"invalid-matrix-not-mapping.yml":              "matrix = [...]: must be a mapping of name: value",
	"invalid-matrix-same-key.yml":                 "matrix: producer.acks = [...]: sets the same probe key as acks",
	"invalid-matrix-unknown-key.yml":              "matrix: partitionz = [...]: unknown key: a matrix key is a probe key (record_size, rate, partitions, replication_factor, acks, linger.ms, batch.size, fetch.max.bytes, consumers, ...) or its full path (producer.acks)",
	"invalid-matrix-value-invalid.yml":            "scenario \"record_size=100,linger.ms=-5\": producer.linger.ms = -5: must be >= 0",
	"invalid-payload-kind.yml":                    "defaults: payload.kind = \"zeros\": must be one of random_letters, random_bytes, file",
	"invalid-matrix-payload-kind.yml":             "scenario \"payload.kind=zeros\": payload.kind = \"zeros\": must be one of random_letters, random_bytes, file",
	"invalid-multi-document.yml":                  "invalid YAML: line 2: a second document (---): a bench file is one YAML document",
	"invalid-negative-rate.yml":                   "rate = -1: must be >= 0 (0 = as fast as possible)",
	"invalid-rate-below-min.yml":                  "rate = 1e-320: must be 0 or >= 1e-09 records/s: slower, the time between two records does not fit a duration",
	"invalid-negative-warmup.yml":                 "warmup_records = -10: must be >= 0",
	"invalid-no-bound.yml":                        "num_records = 0: set num_records or duration (exactly one)",
	"invalid-not-mapping.yml":                     "the bench file must be a mapping of keys such as kafka, defaults, num_records, scenarios and matrix",
	"invalid-scenario-invalid.yml":                "scenario \"idempotent-acks1\": producer.enable.idempotence = true: requires acks=all; set enable.idempotence: false to use acks \"1\"",
	"invalid-scenario-no-name.yml":                "scenarios[0]: name = \"\": every scenario needs a name",
	"invalid-scenario-wrong-type.yml":             "scenario \"fast\": rate = \"fast\": must be a number",
	"invalid-restart-bad-field.yml":               "restart.command = \"ssh {{.Hots}} systemctl restart kafka\": invalid template: can't evaluate field Hots in type spec.RestartData (the fields are {{.BrokerID}}, {{.Host}} and {{.SettingsFile}})",
	"invalid-restart-bad-template.yml":            "restart.command = \"ssh {{.Host} restart\": invalid template: bad character U+007D '}'",
	"invalid-restart-no-command.yml":              "restart.command = \"\": set the command that restarts one broker, such as: ssh {{.Host}} sudo systemctl restart kafka",
	"invalid-restart-unknown-key.yml":             "restart.retries = 3: unknown key (supported: command, preferred_leaders, timeout)",
	"invalid-restart-zero-timeout.yml":            "restart.timeout = 0s: must be > 0",
	"invalid-rounds-zero.yml":                     "rounds = 0: must be 1 ... 100",
	"invalid-scenarios-not-list.yml":              "scenarios = {...}: must be a list",
	"invalid-unknown-defaults-key.yml":            "defaults: record_sise = 100: unknown key (supported: capacity, catch_up, consumer, create_topic, lag_interval, loss_grace_period, name, payload, producer, rate, record_size, replica, round_interval, topic)",
	"invalid-unknown-scenario-key.yml":            "scenario \"linger-20\": producer.linger.mss = 20: unknown key (supported: acks, batch.size, buffer.memory, compression.gzip.level, compression.lz4.level, compression.type, compression.zstd.level, connections.max.idle.ms, delivery.timeout.ms, enable.idempotence, enable.metrics.push, linger.ms, max.in.flight.requests.per.connection, max.request.size, metadata.max.age.ms, request.timeout.ms, retries, transaction.abort.ratio, transaction.duration.ms, transaction.timeout.ms, transactional.id)",
	"invalid-unknown-top-key.yml":                 "num_recordz = 5: unknown key (supported: baseline, cold, consume_only, defaults, delete_topics, drain_timeout, duration, find_max_rate, hosts, kafka, matrix, num_records, rate, read_delay, restart, rounds, scenarios, warmup_records)",
	"invalid-hosts-no-name.yml":                   "hosts[0]: name = \"\": every host needs a name",
	"invalid-hosts-bad-url.yml":                   "host \"kafka1\": url = \"kafka1:9100\": must be an http:// or https:// URL of a /metrics endpoint, such as http://kafka1:9100/metrics",
	"invalid-hosts-bad-role.yml":                  "host \"kafka1\": role = \"database\": must be one of broker, producer, consumer, other",
	"invalid-hosts-duplicate.yml":                 "host \"kafka1\": name = \"kafka1\": duplicate host name",
	"invalid-hosts-reserved-name.yml":             "host \"bench\": name = \"bench\": reserved for the bench's own host, which is always measured",
	"invalid-hosts-bad-disk-regex.yml":            "host \"kafka1\": disks = \"(sd\": invalid regex: error parsing regexp: missing closing ): `(sd`",
	"invalid-hosts-unknown-key.yml":               "host \"kafka1\": address = \"http://kafka1:9100/metrics\": unknown key (supported: disks, http_config, interfaces, name, role, url)",
	"invalid-hosts-not-list.yml":                  "hosts = {...}: must be a list",
	"invalid-unsupported-scenario-property.yml":   "scenario \"big-buffers\": producer.send.buffer.bytes = 1048576: Kafka producer property franz-go cannot express: franz-go sets no socket buffer size: the kernel's (auto-tuned) applies",
}

func TestInvalidBenchFiles(t *testing.T) {
	fixtures.Invalid(t, invalidFiles, func(f string) error {
		_, err := Load(f)
		return err
	}, nil)
}

func TestValidMatrix(t *testing.T) {
	b, err := Load("testdata/valid-matrix.yml")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := b.ParamKeys, []string{"scenario", "record_size", "partitions", "acks"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ParamKeys = %v, want %v", got, want)
	}
	if len(b.Scenarios) != 18 {
		t.Fatalf("%d scenarios, want 3×3×2 = 18", len(b.Scenarios))
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"num_records", b.NumRecords, int64(1000000)},
		{"warmup_records", b.WarmupRecords, int64(10000)},
		{"delete_topics", b.DeleteTopics, true},
		{"drain_timeout default", b.DrainTimeout, time.Minute},
		{"first name", b.Scenarios[0].Name, "linger-20,record_size=40,partitions=3,acks=1"},
		{"last name", b.Scenarios[17].Name, "linger-20,record_size=1000,partitions=15,acks=all"},
		{"second params", strings.Join(b.Scenarios[1].Params, " "), "linger-20 40 3 all"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	topics := map[string]bool{}
	labels := map[string]bool{}
	for _, s := range b.Scenarios {
		p := s.Probe
		if !strings.HasPrefix(p.Topic, TopicPrefix) || !s.OwnTopic || !s.OwnGroup || p.Consumer.GroupID != p.Topic {
			t.Errorf("%s: topic %q group %q own %v/%v: want a generated topic and group", s.Name, p.Topic, p.Consumer.GroupID, s.OwnTopic, s.OwnGroup)
		}
		if topics[p.Topic] || labels[p.Name] {
			t.Errorf("%s: topic %q or label %q used twice", s.Name, p.Topic, p.Name)
		}
		topics[p.Topic], labels[p.Name] = true, true
		if p.Producer.LingerMS != 20 || p.CreateTopic.ReplicationFactor != 1 || p.Rate != 0 {
			t.Errorf("%s: linger.ms %d, replication_factor %d, rate %v: want 20 (scenario), 1 (defaults), 0 (bench)",
				s.Name, p.Producer.LingerMS, p.CreateTopic.ReplicationFactor, p.Rate)
		}
		if got := []string{s.Params[1], s.Params[2], s.Params[3]}; !reflect.DeepEqual(got,
			[]string{strconv.Itoa(p.RecordSize), strconv.Itoa(int(p.CreateTopic.Partitions)), p.Producer.Acks}) {
			t.Errorf("%s: probe has record_size %d, partitions %d, acks %s; params say %v", s.Name, p.RecordSize, p.CreateTopic.Partitions, p.Producer.Acks, got)
		}
		if want := p.Producer.Acks == "all"; p.Producer.Idempotent() != want {
			t.Errorf("%s: idempotence %v, want %v (follows acks as in Kafka)", s.Name, p.Producer.Idempotent(), want)
		}
	}
}

// TestExpansion checks the order of the cartesian product, which key wins,
// and how short and full matrix keys land in the probe.
func TestExpansion(t *testing.T) {
	cases := []struct {
		name   string
		file   string
		keys   []string
		names  []string
		verify func(t *testing.T, b *Bench)
	}{
		{
			name:  "defaults alone",
			file:  "num_records: 10\ndefaults: {record_size: 200}\n",
			names: []string{""},
			verify: func(t *testing.T, b *Bench) {
				if p := b.Scenarios[0].Probe; p.Name != "bench" || p.RecordSize != 200 || p.Rate != 0 {
					t.Errorf("label %q, record_size %d, rate %v; want bench, 200, 0", p.Name, p.RecordSize, p.Rate)
				}
			},
		},
		{
			name:  "matrix: first key varies slowest",
			file:  "num_records: 10\nmatrix:\n  partitions: [3, 9]\n  acks: [\"1\", all]\n",
			keys:  []string{"partitions", "acks"},
			names: []string{"partitions=3,acks=1", "partitions=3,acks=all", "partitions=9,acks=1", "partitions=9,acks=all"},
		},
		{
			name:  "scenarios alone",
			file:  "num_records: 10\nscenarios:\n  - {name: a}\n  - {name: b, rate: 50}\n",
			keys:  []string{"scenario"},
			names: []string{"a", "b"},
			verify: func(t *testing.T, b *Bench) {
				if r := b.Scenarios[1].Probe.Rate; r != 50 {
					t.Errorf("scenario b rate = %v, want 50", r)
				}
			},
		},
		{
			name:  "scenarios times matrix",
			file:  "num_records: 10\nscenarios:\n  - {name: a}\n  - {name: b}\nmatrix:\n  record_size: [64, 128]\n",
			keys:  []string{"scenario", "record_size"},
			names: []string{"a,record_size=64", "a,record_size=128", "b,record_size=64", "b,record_size=128"},
		},
		{
			name: "precedence: bench rate < defaults < scenario < matrix",
			file: "num_records: 10\nrate: 1\ndefaults: {rate: 2, producer: {linger.ms: 7, batch.size: 1000}}\n" +
				"scenarios:\n  - {name: s, rate: 3, producer: {linger.ms: 8}}\nmatrix:\n  rate: [4]\n",
			names: []string{"s,rate=4"},
			keys:  []string{"scenario", "rate"},
			verify: func(t *testing.T, b *Bench) {
				p := b.Scenarios[0].Probe
				if p.Rate != 4 || p.Producer.LingerMS != 8 || p.Producer.BatchSize != 1000 {
					t.Errorf("rate %v linger.ms %d batch.size %d; want 4 (matrix), 8 (scenario), 1000 (defaults, merged)", p.Rate, p.Producer.LingerMS, p.Producer.BatchSize)
				}
			},
		},
		{
			name: "short and full keys reach their fields",
			file: "num_records: 10\nmatrix:\n  producer.acks: [\"1\"]\n  replication_factor: [3]\n  compression.type: [lz4]\n" +
				"  buffer.memory: [67108864]\n  fetch.max.bytes: [1024]\n  max.partition.fetch.bytes: [2048]\n  max.poll.records: [100]\n" +
				"  consumers: [4]\n  consumer.enabled: [false]\n  enable.idempotence: [false]\n",
			keys: []string{"producer.acks", "replication_factor", "compression.type", "buffer.memory", "fetch.max.bytes",
				"max.partition.fetch.bytes", "max.poll.records", "consumers", "consumer.enabled", "enable.idempotence"},
			names: []string{"producer.acks=1,replication_factor=3,compression.type=lz4,buffer.memory=67108864,fetch.max.bytes=1024," +
				"max.partition.fetch.bytes=2048,max.poll.records=100,consumers=4,consumer.enabled=false,enable.idempotence=false"},
			verify: func(t *testing.T, b *Bench) {
				p := b.Scenarios[0].Probe
				got := []any{p.Producer.Acks, p.CreateTopic.ReplicationFactor, p.Producer.CompressionType, p.Producer.BufferMemory,
					p.Consumer.FetchMaxBytes, p.Consumer.MaxPartitionFetchBytes, p.Consumer.MaxPollRecords, p.Consumer.Consumers,
					p.Consumer.Enabled, p.Producer.Idempotent()}
				want := []any{"1", int16(3), "lz4", int64(67108864), int32(1024), int32(2048), 100, 4, false, false}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("probe fields %v, want %v", got, want)
				}
			},
		},
		{
			name:  "a topic named in the file is kept and not owned",
			file:  "num_records: 10\ndefaults: {topic: pre-filled, consumer: {group.id: g}}\nconsume_only: true\n",
			names: []string{""},
			verify: func(t *testing.T, b *Bench) {
				s := b.Scenarios[0]
				if s.Probe.Topic != "pre-filled" || s.OwnTopic || s.OwnGroup || s.Probe.Consumer.GroupID != "g" || !b.ConsumeOnly {
					t.Errorf("topic %q own %v, group %q own %v, consume_only %v", s.Probe.Topic, s.OwnTopic, s.Probe.Consumer.GroupID, s.OwnGroup, b.ConsumeOnly)
				}
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := Parse([]byte(c.file))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(b.ParamKeys, c.keys) {
				t.Errorf("ParamKeys = %q, want %q", b.ParamKeys, c.keys)
			}
			var names []string
			for _, s := range b.Scenarios {
				names = append(names, s.Name)
				if len(s.Params) != len(b.ParamKeys) {
					t.Errorf("%s: %d params for %d keys", s.Name, len(s.Params), len(b.ParamKeys))
				}
				if !labelRE.MatchString(s.Probe.Name) {
					t.Errorf("%s: label %q is not a valid probe name", s.Name, s.Probe.Name)
				}
			}
			if !reflect.DeepEqual(names, c.names) {
				t.Errorf("names = %q, want %q", names, c.names)
			}
			if c.verify != nil {
				c.verify(t, b)
			}
		})
	}
}

func TestLabelsUniqueAndShort(t *testing.T) {
	used := map[string]bool{}
	long := strings.Repeat("linger.ms=5,", 10)
	cases := []struct{ name, hash, want string }{
		{"record_size=100,acks=all", "aaaaaaaaaaaa", "record_size_100_acks_all"},
		{"record_size:100,acks:all", "bbbbbbbbbbbb", "record_size_100_acks_all-bbbbbbbbbbbb"}, // same once sanitised
		{"", "cccccccccccc", "bench"},
		{long, "dddddddddddd", "linger_ms_5_linger_ms_5_linger_ms_5_linger_ms_5_lin-dddddddddddd"},
	}
	for _, c := range cases {
		got := uniqueLabel(c.name, c.hash, used)
		if got != c.want {
			t.Errorf("uniqueLabel(%q) = %q, want %q", c.name, got, c.want)
		}
		if len(got) > maxLabelLength || !labelRE.MatchString(got) {
			t.Errorf("uniqueLabel(%q) = %q: not a valid probe name", c.name, got)
		}
	}
}

func TestLoadMissingFile(t *testing.T) {
	if _, err := Load(filepath.Join(t.TempDir(), "none.yml")); !os.IsNotExist(err) {
		t.Errorf("Load of a missing file: %v, want a not-exist error", err)
	}
}

var labelRE = regexp.MustCompile(`^[a-z0-9_-]{1,64}$`)

// TestValidFiles: every valid-*.yml (examples included) loads.
func TestValidFiles(t *testing.T) {
	files, err := filepath.Glob("testdata/valid-*.yml")
	if err != nil || len(files) < 2 {
		t.Fatalf("valid files: %v, %v", files, err)
	}
	for _, f := range files {
		if _, err := Load(f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}
