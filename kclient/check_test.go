package kclient

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/internal/fixtures"
)

// Every testdata/invalid-*.yml passes config's own checks and is refused
// when its clients are built, naming the key the file sets.
var invalidFiles = map[string]string{
	"invalid-batch-size-above-request.yml":       `probe "p1": producer.batch.size = 104857601: franz-go refuses it: max broker write bytes 104857600 is erroneously less than max record batch bytes 104857601`,
	"invalid-batch-size-small.yml":               `probe "p1": producer.batch.size = 100: franz-go refuses it: max record batch bytes 164 is less than allowed 512`,
	"invalid-capacity-client-id-long.yml":        `probe "p1": kafka.client_id = "` + strings.Repeat("c", 250) + `-capacity-p1": franz-go refuses it: client id length 262 is larger than max allowed 256`,
	"invalid-client-id-long.yml":                 `kafka.client_id = "` + strings.Repeat("c", 300) + `": franz-go refuses it: client id length 300 is larger than max allowed 256`,
	"invalid-delivery-timeout-below-second.yml":  `probe "p1": producer.delivery.timeout.ms = 500: franz-go refuses it: record timeout 500ms is less than allowed 1s`,
	"invalid-fetch-max-bytes-above-response.yml": `probe "p1": consumer.fetch.max.bytes = 104857601: franz-go refuses it: max broker read bytes 104857600 is erroneously less than max fetch bytes 104857601`,
	"invalid-fetch-max-wait-zero.yml":            `probe "p1": consumer.fetch.max.wait.ms = 0: franz-go refuses it: max fetch wait 0s is less than allowed 10ms`,
	"invalid-linger-above-minute.yml":            `probe "p1": producer.linger.ms = 70000: franz-go refuses it: linger 1m10s is larger than allowed 1m0s`,
	"invalid-request-timeout-short.yml":          `probe "p1": producer.request.timeout.ms = 50: franz-go refuses it: produce timeout 50ms is less than allowed 100ms`,
	"invalid-session-timeout-short.yml":          `probe "p1": consumer.session.timeout.ms = 50: franz-go refuses it: session timeout 50ms is less than allowed 100ms`,
}

func TestInvalidClientFiles(t *testing.T) {
	fixtures.Invalid(t, invalidFiles, func(f string) error {
		if _, err := config.Effective(f, config.Overrides{}); err != nil {
			return fmt.Errorf("config refuses it already: %w", err)
		}
		_, err := config.Load(f, config.Overrides{}, Check)
		return err
	}, nil)
}

// The edges the configuration reference states are accepted, the largest record
// included (with buffer.memory raised to hold it), with and without brokers.
func TestCheckAcceptsTheEdges(t *testing.T) {
	for _, brokers := range [][]string{nil, {"127.0.0.1:1"}} {
		p := config.NewProbe("edges")
		p.RecordSize = 104856576
		p.Producer.BufferMemory = 200 << 20
		p.Producer.LingerMS = 60000
		p.Producer.RequestTimeoutMS = 100
		p.Producer.DeliveryTimeoutMS = 60100
		p.Consumer.FetchMaxWaitMS = 10
		p.Consumer.FetchMaxBytes = 104857600
		p.Consumer.SessionTimeoutMS = new(100)
		p.Consumer.HeartbeatIntervalMS = new(99)
		p.Resolve()
		cfg := &config.Config{Kafka: config.Kafka{Brokers: brokers, ClientID: strings.Repeat("c", 256-len("-capacity-edges"))}, Probes: []config.Probe{p}}
		c := &config.Capacity{}
		c.SetDefaults()
		c.MaxRate, c.Topic = 1000, "edges-capacity"
		cfg.Probes[0].Capacity = c
		if err := cfg.Validate(); err != nil {
			t.Fatal(err)
		}
		res, err := config.Resolve(cfg, "")
		if err != nil {
			t.Fatal(err)
		}
		if err := Check(res); err != nil {
			t.Errorf("brokers %v: %v", brokers, err)
		}
	}
}

// A share probe's Check builds its share-group member, not a consumer
// group's: what franz-go refuses of the member (here the share group's id,
// longer than a request can carry) is refused at load, naming the key.
func TestCheckBuildsTheShareMember(t *testing.T) {
	p := config.NewProbe("p")
	p.Consumer.Kind = config.ConsumerKindShare
	p.Resolve()
	p.Consumer.Share.GroupID = strings.Repeat("s", 16383)
	cfg := &config.Config{Probes: []config.Probe{p}}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	res, err := config.Resolve(cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	want := `probe "p": consumer.share.group.id = "` + strings.Repeat("s", 16383) + `": franz-go refuses it: `
	if err := Check(res); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("Check = %v, want it to start %.60q", err, want)
	}
	p.Consumer.Share.GroupID = strings.Repeat("s", 16382)
	cfg.Probes[0] = p
	if res, err = config.Resolve(cfg, ""); err != nil {
		t.Fatal(err)
	}
	if err := Check(res); err != nil {
		t.Fatalf("the longest share group id: %v", err)
	}
}

// A catch-up reader is built once by CheckProbe too: an override that
// franz-go refuses is named by its window's key (config refuses this one
// itself; a probe built in code is checked all the same).
func TestCheckBuildsTheCatchUpReaders(t *testing.T) {
	p := config.NewProbe("p1")
	p.Resolve()
	wait := 5
	w := config.CatchUp{From: "1h"}
	w.SetDefaults()
	ok := w
	w.Consumer.FetchMaxWaitMS = &wait
	p.CatchUp = []config.CatchUp{ok, w}
	want := `probe "p1": catch_up[1].consumer.fetch.max.wait.ms = 5: franz-go refuses it: max fetch wait 5ms is less than allowed 10ms`
	if err := CheckProbe(config.Cluster{}, p); err == nil || err.Error() != want {
		t.Errorf("CheckProbe = %v, want %s", err, want)
	}
	p.CatchUp = []config.CatchUp{ok}
	if err := CheckProbe(config.Cluster{}, p); err != nil {
		t.Errorf("CheckProbe with a valid window = %v", err)
	}
}
