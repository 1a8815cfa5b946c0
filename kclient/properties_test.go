package kclient

import (
	"reflect"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
	"github.com/twmb/franz-go/pkg/kgo"
	"go.yaml.in/yaml/v3"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/kafkaprops"
)

// propertyCase sets one Kafka property (set) on a probe prepared by base,
// and says which franz-go options it must give (want). A plain property
// (kafkaprops.Plain) needs none: its row's example is its case (caseOf).
type propertyCase struct {
	block, name string
	base, set   func(*config.Probe)
	want        []kgo.Opt
}

// caseOf is the case of property name of block: propertyCases' or, for a
// plain property, its row's example, set through the YAML decoder as a
// file sets it, with the options the row builds of it.
func caseOf(block, name string) (propertyCase, bool) {
	for _, c := range propertyCases {
		if c.block == block && c.name == name {
			return c, true
		}
	}
	row, ok := kafkaprops.Lookup(block, name)
	if !ok || row.Plain == nil || row.Plain.Build == nil {
		return propertyCase{}, false
	}
	set := func(p *config.Probe) {
		doc, err := yaml.Marshal(map[string]any{name: row.Plain.Example})
		target := any(&p.Producer)
		if block == "consumer" {
			target = &p.Consumer
		}
		if err == nil {
			err = yaml.Unmarshal(doc, target)
		}
		if err != nil {
			panic(err)
		}
	}
	return propertyCase{block: block, name: name, set: set, want: row.Plain.Build(row.Plain.Example)}, true
}

var propertyCases = []propertyCase{
	{block: "producer", name: "acks", set: func(p *config.Probe) { p.Producer.Acks = "1"; p.Producer.EnableIdempotence = new(false) }, want: []kgo.Opt{kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite()}},
	{block: "producer", name: "batch.size", set: func(p *config.Probe) { p.Producer.BatchSize = 65536 }, want: []kgo.Opt{kgo.ProducerBatchMaxBytes(65536)}},
	{block: "producer", name: "buffer.memory", set: func(p *config.Probe) { p.Producer.BufferMemory = 64 << 20 }, want: []kgo.Opt{kgo.MaxBufferedBytes(64 << 20), kgo.MaxBufferedRecords(64<<20/1024 + 1)}},
	{block: "producer", name: "compression.type", set: func(p *config.Probe) { p.Producer.CompressionType = "zstd" }, want: []kgo.Opt{kgo.ProducerBatchCompression(kgo.ZstdCompression())}},
	{block: "producer", name: "compression.gzip.level", base: func(p *config.Probe) { p.Producer.CompressionType = "gzip" },
		set: func(p *config.Probe) { p.Producer.CompressionGzipLevel = new(1) }, want: []kgo.Opt{kgo.ProducerBatchCompression(kgo.GzipCompression().WithLevel(1))}},
	{block: "producer", name: "compression.lz4.level", base: func(p *config.Probe) { p.Producer.CompressionType = "lz4" },
		set: func(p *config.Probe) { p.Producer.CompressionLz4Level = new(9) }, want: []kgo.Opt{kgo.ProducerBatchCompression(kgo.Lz4Compression().WithLevel(int(lz4.Level9)))}},
	{block: "producer", name: "compression.zstd.level", base: func(p *config.Probe) { p.Producer.CompressionType = "zstd" },
		set: func(p *config.Probe) { p.Producer.CompressionZstdLevel = new(19) }, want: []kgo.Opt{kgo.ProducerBatchCompression(kgo.ZstdCompression().WithLevel(int(zstd.SpeedBestCompression)))}},
	{block: "producer", name: "enable.idempotence", set: func(p *config.Probe) { p.Producer.EnableIdempotence = new(false) }, want: []kgo.Opt{kgo.DisableIdempotentWrite()}},
	{block: "producer", name: "max.in.flight.requests.per.connection", base: func(p *config.Probe) { p.Producer.EnableIdempotence = new(false) },
		set: func(p *config.Probe) { p.Producer.MaxInFlight = 3 }, want: []kgo.Opt{kgo.MaxProduceRequestsInflightPerBroker(3), kgo.DisableIdempotentWrite()}},
	{block: "producer", name: "retries", set: func(p *config.Probe) { p.Producer.Retries = 7 }, want: []kgo.Opt{kgo.RecordRetries(7)}},
	{block: "producer", name: "transactional.id", set: func(p *config.Probe) { p.Producer.TransactionalID = "tx" }, want: []kgo.Opt{kgo.TransactionalID("tx")}},
	{block: "producer", name: "transaction.timeout.ms", base: func(p *config.Probe) { p.Producer.TransactionalID = "tx" },
		set: func(p *config.Probe) { p.Producer.TransactionTimeoutMS = 120000 }, want: []kgo.Opt{kgo.TransactionTimeout(ms(120000))}},

	{block: "consumer", name: "auto.offset.reset", set: func(p *config.Probe) { p.Consumer.AutoOffsetReset = "latest" }, want: []kgo.Opt{kgo.ConsumeResetOffset(kgo.NewOffset().AtEnd())}},
	{block: "consumer", name: "client.rack", set: func(p *config.Probe) { p.Consumer.ClientRack = "b" }, want: []kgo.Opt{kgo.Rack("b"), kgo.BalanceRacks()}},
	{block: "consumer", name: "group.id", set: func(p *config.Probe) { p.Consumer.GroupID = "other" }, want: []kgo.Opt{kgo.ConsumerGroup("other")}},
	{block: "consumer", name: "group.instance.id", set: func(p *config.Probe) { p.Consumer.GroupInstanceID = "pod-a" }, want: []kgo.Opt{kgo.InstanceID("pod-a")}},
	{block: "consumer", name: "group.protocol", set: func(p *config.Probe) { p.Consumer.GroupProtocol = config.GroupProtocolConsumer },
		want: []kgo.Opt{kgo.ServerSideBalancer(), kgo.Balancers(kgo.StickyBalancer())}},
	{block: "consumer", name: "group.remote.assignor", base: func(p *config.Probe) { p.Consumer.GroupProtocol = config.GroupProtocolConsumer },
		set: func(p *config.Probe) { p.Consumer.GroupRemoteAssignor = "range" }, want: []kgo.Opt{kgo.Balancers(kgo.RangeBalancer())}},
	{block: "consumer", name: "heartbeat.interval.ms", set: func(p *config.Probe) { p.Consumer.HeartbeatIntervalMS = new(1000) }, want: []kgo.Opt{kgo.HeartbeatInterval(ms(1000))}},
	{block: "consumer", name: "isolation.level", set: func(p *config.Probe) { p.Consumer.IsolationLevel = "read_committed" }, want: []kgo.Opt{kgo.FetchIsolationLevel(kgo.ReadCommitted())}},
	{block: "consumer", name: "max.poll.interval.ms", set: func(p *config.Probe) { p.Consumer.MaxPollIntervalMS = new(300000) }, want: []kgo.Opt{kgo.RebalanceTimeout(ms(300000))}},
	{block: "consumer", name: "partition.assignment.strategy", set: func(p *config.Probe) {
		p.Consumer.PartitionAssignmentStrategy = "range, org.apache.kafka.clients.consumer.RoundRobinAssignor"
	}, want: []kgo.Opt{kgo.Balancers(kgo.RangeBalancer(), kgo.RoundRobinBalancer())}},
	{block: "consumer", name: "session.timeout.ms", set: func(p *config.Probe) { p.Consumer.SessionTimeoutMS = new(10000) }, want: []kgo.Opt{kgo.SessionTimeout(ms(10000))}},
}

// probeOwn reports a mapped property the probe applies itself, not
// through a franz-go option (a plain one without Build): the commit
// interval of its own commits and the records of each poll (PollRecords).
func probeOwn(row kafkaprops.Property) bool { return row.Plain != nil && row.Plain.Build == nil }

// built is a client of probe p's producer or consumer options, not
// connected (its seed is a closed port).
func built(t *testing.T, block string, p config.Probe, member int) *kgo.Client {
	t.Helper()
	opts := []kgo.Opt{kgo.SeedBrokers("127.0.0.1:1")}
	if block == "producer" {
		opts = append(opts, ProducerOpts(p)...)
	} else {
		opts = append(opts, ConsumerOpts(p, member, GroupCallbacks{})...)
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatalf("franz-go refuses the client: %v", err)
	}
	t.Cleanup(cl.Close)
	return cl
}

func probeFor(t *testing.T, f ...func(*config.Probe)) config.Probe {
	t.Helper()
	p := config.NewProbe("p")
	for _, fn := range f {
		if fn != nil {
			fn(&p)
		}
	}
	p.Resolve()
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPropertyMappings reads every mapped property's franz-go options back
// from a built client (OptValue): each is the value a client built with
// the option itself has, and differs from the client without the property,
// so no property is accepted and ignored.
func TestPropertyMappings(t *testing.T) {
	for _, row := range kafkaprops.Properties {
		if row.Class != kafkaprops.Mapped {
			continue
		}
		for _, in := range []kafkaprops.Clients{kafkaprops.Producer, kafkaprops.Consumer} {
			if row.In&in == 0 {
				continue
			}
			key := in.Block() + " " + row.Name
			t.Run(strings.ReplaceAll(key, " ", "/"), func(t *testing.T) {
				if probeOwn(row) {
					if len(row.Options) > 0 {
						t.Fatalf("applied by the probe, yet the table names options %v", row.Options)
					}
					return
				}
				c, ok := caseOf(in.Block(), row.Name)
				if !ok {
					t.Fatalf("mapped onto %v, but no case reads it back: add one to propertyCases", row.Options)
				}
				if len(row.Options) == 0 {
					t.Fatal("mapped, but the table names no franz-go option")
				}
				without := built(t, c.block, probeFor(t, c.base), 0)
				with := built(t, c.block, probeFor(t, c.base, c.set), 0)
				ref, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers("127.0.0.1:1")}, c.want...)...)
				if err != nil {
					t.Fatal(err)
				}
				defer ref.Close()
				for _, opt := range row.Options {
					got, want, before := with.OptValue(opt), ref.OptValue(opt), without.OptValue(opt)
					if got == nil {
						t.Fatalf("OptValue(%s) is nil: not a franz-go option name", opt)
					}
					if !reflect.DeepEqual(got, want) {
						t.Errorf("OptValue(%s) = %#v, want %#v", opt, got, want)
					}
					if reflect.DeepEqual(got, before) {
						t.Errorf("OptValue(%s) = %#v with and without %s: the property is ignored", opt, got, row.Name)
					}
				}
			})
		}
	}
}

// TestPropertyTableMatchesConfig holds the producer: and consumer: keys of
// the configuration to the table's mapped rows, both ways.
func TestPropertyTableMatchesConfig(t *testing.T) {
	keys := map[string]bool{}
	config.Walk(reflect.TypeFor[config.Config](), func(k config.Key) bool {
		if !k.Block && len(k.Parts) >= 3 && k.Parts[0] == "probes" && (k.Parts[1] == "producer" || k.Parts[1] == "consumer") {
			keys[k.Parts[1]+" "+strings.Join(k.Parts[2:], ".")] = true
		}
		return true
	})
	for _, own := range config.ProbeOwnClientKeys {
		if !keys[own] {
			t.Errorf("%s: listed as the probe's own, but no such key", own)
		}
		delete(keys, own)
	}
	mapped := map[string]bool{}
	for _, row := range kafkaprops.Properties {
		for _, in := range []kafkaprops.Clients{kafkaprops.Producer, kafkaprops.Consumer} {
			if row.In&in != 0 && row.Class == kafkaprops.Mapped {
				mapped[in.Block()+" "+row.Name] = true
			}
		}
	}
	for k := range keys {
		if !mapped[k] {
			t.Errorf("%s: a key of the configuration without a mapped row in kafkaprops", k)
		}
	}
	for k := range mapped {
		if !keys[k] {
			t.Errorf("%s: mapped in kafkaprops, but no key of the configuration", k)
		}
	}
}

// TestInstanceIDPerMember: with several consumers every member has its own
// group.instance.id, as static membership needs.
func TestInstanceIDPerMember(t *testing.T) {
	p := probeFor(t, func(p *config.Probe) { p.Consumer.GroupInstanceID = "pod-a"; p.Consumer.Consumers = 2 })
	for member, want := range []string{"pod-a-0", "pod-a-1"} {
		if got := built(t, "consumer", p, member).OptValue(kgo.InstanceID); got != want {
			t.Errorf("member %d: InstanceID = %v, want %s", member, got, want)
		}
	}
}
