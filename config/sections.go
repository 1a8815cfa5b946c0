package config

import "github.com/kafka-bench/kafka_bench_exporter/sasl"

// Section is one kafka section of the configuration: the kafka block, or
// the replica.kafka block of a probe. Every client the configuration
// implies reaches one of them.
type Section struct {
	// Probe is the probe of a replica block; "" for the kafka block.
	Probe string
	// Key is the section's key in the file, the prefix of its settings'
	// keys in messages: kafka or replica.kafka.
	Key   string
	Kafka Kafka
}

// Sections are the kafka block and each probe's replica block, in the
// order of the file.
func (c *Config) Sections() []Section {
	s := []Section{{Key: "kafka", Kafka: c.Kafka}}
	for _, p := range c.Probes {
		if p.Replica != nil {
			s = append(s, Section{Probe: p.Name, Key: "replica.kafka", Kafka: p.Replica.Kafka})
		}
	}
	return s
}

// Warnings are the section's risky but valid settings, logged as WARN at
// start and when the section changes, named with the section's keys.
func (s Section) Warnings() []string {
	k := s.Kafka
	var w []string
	if k.TLS.Enabled && k.TLS.InsecureSkipVerify {
		w = append(w, s.Key+".tls.insecure_skip_verify is true: broker certificates are NOT verified, "+
			"so anyone on the network path can impersonate the brokers (and read SASL credentials); use it for tests only")
	}
	if k.SASL.Mechanism == sasl.PLAIN && !k.TLS.Enabled {
		w = append(w, s.Key+".sasl.mechanism PLAIN without "+s.Key+".tls.enabled sends the password in clear text")
	}
	return w
}
