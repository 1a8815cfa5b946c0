package kclient

import (
	"fmt"
	"slices"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/config"
)

// checkSeed stands in for the brokers of the embedded cluster, which has no
// address before it starts: Check never dials it.
const checkSeed = "127.0.0.1:9092"

// Check builds, without connecting, every client the configuration implies
// (each probe's admin, producer and consumer clients, its capacity clients,
// the configuration watcher's) and closes them at once. franz-go validates
// its options when a client is built; a client it refuses is refused here
// in the one-line form of every configuration error, naming the key the
// user wrote: probe "a": producer.linger.ms = 70000: franz-go refuses it: ...
func Check(res *config.Resolved) error {
	for _, p := range res.Probes {
		if err := CheckProbe(res.Kafka, p.Probe); err != nil {
			return err
		}
	}
	if len(res.Kafka.Kafka.Brokers) > 0 { // the configuration watcher's client
		return check("", res.Kafka, Options{}, nil)
	}
	return nil
}

// CheckProbe is Check for one probe's clients (bench mode checks its
// scenarios' probes with it).
func CheckProbe(k config.Cluster, p config.Probe) error {
	scope := fmt.Sprintf("probe %q", p.Name)
	probing := Options{Probing: true}
	if err := check(scope, k, probing, nil); err != nil { // admin
		return err
	}
	if err := check(scope, k, probing, producerProps(p)); err != nil {
		return err
	}
	if p.Consumer.Enabled {
		props := consumerProps(p, 0, GroupCallbacks{})
		if p.Consumer.IsShare() {
			props = shareConsumerProps(p, nil)
		}
		if err := check(scope, k, probing, props); err != nil {
			return err
		}
	}
	if p.Capacity != nil {
		ck := k
		ck.Kafka.ClientID = CapacityClientID(k.Kafka.ClientID, p.Name)
		cp := p
		cp.Topic = p.Capacity.Topic
		if err := check(scope, ck, probing, producerProps(cp)); err != nil {
			return err
		}
		// With end_to_end_slo a reader takes the consumer's fetch settings,
		// even with the probe's consumer off.
		if p.Capacity.EndToEndSLO > 0 {
			if err := check(scope, ck, probing, consumerProps(cp, 0, GroupCallbacks{})); err != nil {
				return err
			}
		}
	}
	return checkCatchUps(scope, k, probing, p) // catchup.go
}

// CapacityClientID is the client.id of a probe's capacity clients, so that
// a Kafka quota can single them out.
func CapacityClientID(clientID, probe string) string { return clientID + "-capacity-" + probe }

// check builds one client of k with props (leaving out those that start
// it); when franz-go refuses, it builds again adding one property at a time
// to find the one to name.
func check(scope string, k config.Cluster, o Options, props []property) error {
	if len(k.Kafka.Brokers) == 0 {
		k.Kafka.Brokers = []string{checkSeed}
	}
	base, err := clientOpts(k, o)
	if err != nil {
		return err // the connection settings are checked by config already
	}
	var own []property
	for _, p := range props {
		if !p.starts {
			own = append(own, p)
		}
	}
	whole := build(append(slices.Clone(base), flatten(own)...))
	if whole == nil {
		return nil
	}
	// client.id is in base; a default one goes first so that a refused
	// client.id is named as such.
	opts := append(base, kgo.ClientID(config.DefaultClientID))
	own = append([]property{{key: "kafka.client_id", value: k.Kafka.ClientID, opts: []kgo.Opt{kgo.ClientID(k.Kafka.ClientID)}}}, own...)
	if err := build(opts); err != nil {
		return refused(scope, "", nil, err)
	}
	for _, p := range own {
		opts = append(opts, p.opts...)
		if err := build(opts); err != nil {
			return refused(scope, p.key, p.value, err)
		}
	}
	return refused(scope, "", nil, whole)
}

func build(opts []kgo.Opt) error {
	cl, err := kgo.NewClient(opts...)
	if err == nil {
		cl.Close()
	}
	return err
}

func refused(scope, key string, value any, err error) error {
	if key == "" {
		if scope != "" {
			scope += ": "
		}
		return fmt.Errorf("%sfranz-go refuses the client: %w", scope, err)
	}
	return config.FieldError(scope, key, value, "franz-go refuses it: "+err.Error())
}
