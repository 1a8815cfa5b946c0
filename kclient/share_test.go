package kclient

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/kafkaprops"
)

// shareNotApplied are the consumer keys a share-group member does not take,
// and why; the reference docs (consumer.kind, Kafka property mapping) say
// so. Every other consumer key applies to both kinds.
var shareNotApplied = map[string]string{
	"group.id":                      "the consumer group's id: the share group's is share.group.id",
	"auto.commit.interval.ms":       "a share group member acknowledges each record, it commits nothing",
	"session.timeout.ms":            "the share group's session is the broker's group.share.session.timeout.ms",
	"heartbeat.interval.ms":         "the share group's heartbeat is the broker's group.share.heartbeat.interval.ms",
	"isolation.level":               "the share group's share.isolation.level, set by the probe on the group",
	"auto.offset.reset":             "refused with consumer.kind share (config)",
	"group.protocol":                "refused with consumer.kind share (config)",
	"group.remote.assignor":         "refused with consumer.kind share (config)",
	"partition.assignment.strategy": "refused with consumer.kind share (config)",
	"group.instance.id":             "refused with consumer.kind share (config)",
	"max.poll.interval.ms":          "refused with consumer.kind share (config)",
}

// shareCases are the keys whose options differ on a share-group member
// from a consumer group's (caseOf): max.poll.records is also the
// share fetch's record limit; client.rack has no rack-aware assignment,
// the broker assigns.
var shareCases = map[string]struct {
	set     func(*config.Probe)
	options []string
	want    []kgo.Opt
}{
	"max.poll.records": {func(p *config.Probe) { p.Consumer.MaxPollRecords = 100 }, []string{"ShareMaxRecords"}, []kgo.Opt{kgo.ShareGroup("g"), kgo.ShareMaxRecords(100)}},
	"client.rack":      {func(p *config.Probe) { p.Consumer.ClientRack = "b" }, []string{"Rack"}, []kgo.Opt{kgo.Rack("b")}},
}

// builtShare is a share-group member of probe p, not connected (its seed
// is a closed port).
func builtShare(t *testing.T, p config.Probe) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers("127.0.0.1:1")}, ShareConsumerOpts(p, nil)...)...)
	if err != nil {
		t.Fatalf("franz-go refuses the share member: %v", err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// TestShareMemberTakesTheConsumerKeys: every consumer key but those of
// shareNotApplied (and the probe's own) reaches a share-group member: its
// franz-go options read back from the built member (OptValue) are those of
// a client built with the options themselves, and differ from a member
// without the key.
func TestShareMemberTakesTheConsumerKeys(t *testing.T) {
	options := map[string][]string{}
	for _, row := range kafkaprops.Properties {
		if row.In&kafkaprops.Consumer != 0 && row.Class == kafkaprops.Mapped {
			options[row.Name] = row.Options
		}
	}
	keys := map[string]bool{}
	config.Walk(reflect.TypeFor[config.Config](), func(k config.Key) bool {
		if !k.Block && len(k.Parts) >= 3 && k.Parts[0] == "probes" && k.Parts[1] == "consumer" {
			keys[strings.Join(k.Parts[2:], ".")] = true
		}
		return true
	})
	for name := range shareNotApplied {
		if !keys[name] {
			t.Errorf("%s: listed as not applied to a share member, but no such consumer key", name)
		}
	}
	share := func(p *config.Probe) { p.Consumer.Kind = config.ConsumerKindShare }
	applied := 0
	for name := range keys {
		if shareNotApplied[name] != "" || slices.Contains(config.ProbeOwnClientKeys, "consumer "+name) {
			continue
		}
		applied++
		t.Run(name, func(t *testing.T) {
			var base, set func(*config.Probe)
			var opts []string
			var want []kgo.Opt
			if sc, ok := shareCases[name]; ok {
				set, opts, want = sc.set, sc.options, sc.want
			} else if c, ok := caseOf("consumer", name); ok {
				base, set, opts, want = c.base, c.set, options[name], c.want
			} else {
				t.Fatal("no case reads it back: add one to propertyCases or shareCases, or list the key in shareNotApplied")
			}
			if len(opts) == 0 {
				t.Fatal("no franz-go option to read back")
			}
			without := builtShare(t, probeFor(t, share, base))
			with := builtShare(t, probeFor(t, share, base, set))
			ref, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers("127.0.0.1:1")}, want...)...)
			if err != nil {
				t.Fatal(err)
			}
			defer ref.Close()
			for _, opt := range opts {
				got, want, before := with.OptValue(opt), ref.OptValue(opt), without.OptValue(opt)
				if got == nil {
					t.Fatalf("OptValue(%s) is nil: not a franz-go option name", opt)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("OptValue(%s) = %#v, want %#v", opt, got, want)
				}
				if reflect.DeepEqual(got, before) {
					t.Errorf("OptValue(%s) = %#v with and without consumer.%s: the share member ignores it", opt, got, name)
				}
			}
		})
	}
	if applied < 11 {
		t.Errorf("%d consumer keys apply to a share member, want at least the 11 the docs name", applied)
	}
}
