package config

import (
	"errors"
	"fmt"

	"github.com/kafka-bench/kafka_bench_exporter/yamlnode"
)

// Overrides are the command-line settings that combine with the file. A nil
// field was not given on the command line.
//
// How they combine: --kafka.brokers and --collector.host replace the file's
// kafka.brokers and host.enabled. The --probe.* flags define one probe named
// "default" and apply only when the file defines no probes; given together
// with a file that has probes they are an error, so nothing is silently
// ignored. NoProbes (--no-probes) runs no probe at all, as probes: [] does.
// PropertiesFile (--kafka.properties-file, relative to the working
// directory) replaces the file's kafka.properties_file; without a file, its
// producer and consumer keys apply to the default probe.
type Overrides struct {
	Brokers          []string
	PropertiesFile   string
	NoProbes         bool
	HostEnabled      *bool
	ProbeRate        *float64
	ProbeRecordSize  *int
	ProbeAcks        *string
	ProbeTopic       *string
	ProbePartitions  *int32
	ProbeReplication *int16
}

// DefaultProbeName names the probe the --probe.* flags define.
const DefaultProbeName = "default"

// Effective loads the file (if any), applies the overrides and validates.
func Effective(file string, o Overrides) (*Config, error) {
	var cfg *Config
	var err error
	var base *Probe // the default probe with the properties file's keys
	switch {
	case file == "" && o.PropertiesFile != "" && !o.NoProbes:
		probe := yamlnode.Mapping()
		yamlnode.Put(probe, "name", yamlnode.Str(DefaultProbeName))
		if o.ProbeAcks != nil { // before Resolve: acks decide enable.idempotence's default
			yamlnode.SetPath(probe, []string{"producer", "acks"}, yamlnode.Str(*o.ProbeAcks))
		}
		if cfg, err = load("", o.PropertiesFile, probe); err == nil {
			base, cfg.Probes = &cfg.Probes[0], nil
		}
	case file != "" || o.PropertiesFile != "":
		cfg, err = load(file, o.PropertiesFile, nil)
	default:
		cfg, err = Parse(nil)
	}
	if err != nil {
		return nil, err
	}
	if o.Brokers != nil {
		cfg.Kafka.Brokers = o.Brokers
	}
	if o.HostEnabled != nil {
		cfg.Host.Enabled = *o.HostEnabled
	}
	if err := cfg.Kafka.checkEmbedded(); err != nil {
		if file != "" {
			err = fmt.Errorf("%s: %w", file, err)
		}
		return nil, err
	}
	given := o.givenProbeFlags()
	switch {
	case o.NoProbes && len(cfg.Probes) > 0:
		return nil, fmt.Errorf("--no-probes given, but %s defines probes: remove them (probes: []) or the flag", file)
	case o.NoProbes && len(given) > 0:
		return nil, fmt.Errorf("%s given together with --no-probes: the host agent runs no probe", given[0])
	case o.NoProbes:
		cfg.Probes = []Probe{}
		return cfg, nil
	case cfg.HostAgent() && len(given) > 0:
		return nil, fmt.Errorf("%s given, but %s sets probes: [] (host-agent mode): define the probe in the file", given[0], file)
	case len(cfg.Probes) > 0:
		if len(given) > 0 {
			return nil, fmt.Errorf("%s given, but %s defines probes: set it on the probe in the file", given[0], file)
		}
		return cfg, nil
	case cfg.HostAgent():
		return cfg, nil
	}
	p := NewProbe(DefaultProbeName)
	if base != nil {
		p = *base
	}
	set(&p.Rate, o.ProbeRate)
	set(&p.RecordSize, o.ProbeRecordSize)
	set(&p.Producer.Acks, o.ProbeAcks)
	set(&p.Topic, o.ProbeTopic)
	set(&p.CreateTopic.Partitions, o.ProbePartitions)
	set(&p.CreateTopic.ReplicationFactor, o.ProbeReplication)
	p.Resolve()
	cfg.Probes = []Probe{p}
	if err := cfg.Validate(); err != nil {
		return nil, errors.New("command line: " + err.Error())
	}
	return cfg, nil
}

func (o Overrides) givenProbeFlags() []string {
	var given []string
	add := func(isSet bool, flag string) {
		if isSet {
			given = append(given, flag)
		}
	}
	add(o.ProbeRate != nil, "--probe.rate")
	add(o.ProbeRecordSize != nil, "--probe.record-size")
	add(o.ProbeAcks != nil, "--probe.acks")
	add(o.ProbeTopic != nil, "--probe.topic")
	add(o.ProbePartitions != nil, "--probe.partitions")
	add(o.ProbeReplication != nil, "--probe.replication-factor")
	return given
}

func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}
