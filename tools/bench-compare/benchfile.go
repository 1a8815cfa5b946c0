package main

import (
	"fmt"
	"os"

	"go.yaml.in/yaml/v3"
)

// The files this command writes for the exporter, as Go values marshalled
// to YAML: the keys of a bench file (bench/spec) and of a configuration file
// (config) that the comparisons set, nothing else, so every other key keeps
// its default.
type (
	benchFile struct {
		Kafka        kafkaKeys `yaml:"kafka"`
		NumRecords   int64     `yaml:"num_records,omitempty"`
		Duration     string    `yaml:"duration,omitempty"`
		Rate         float64   `yaml:"rate"`
		ConsumeOnly  bool      `yaml:"consume_only,omitempty"`
		DeleteTopics *bool     `yaml:"delete_topics,omitempty"`
		Defaults     probeKeys `yaml:"defaults"`
	}
	configFile struct {
		Kafka  kafkaKeys `yaml:"kafka"`
		Probes []any     `yaml:"probes"` // probeKeys, or withExtra's map
	}
	kafkaKeys struct {
		Brokers []string `yaml:"brokers"`
	}
	probeKeys struct {
		Name        string        `yaml:"name,omitempty"`
		Topic       string        `yaml:"topic,omitempty"`
		Rate        float64       `yaml:"rate,omitempty"`
		RecordSize  int           `yaml:"record_size,omitempty"`
		LagInterval string        `yaml:"lag_interval,omitempty"`
		Payload     *payloadKeys  `yaml:"payload,omitempty"`
		CreateTopic *topicKeys    `yaml:"create_topic,omitempty"`
		Producer    *producerKeys `yaml:"producer,omitempty"`
		Consumer    *consumerKeys `yaml:"consumer,omitempty"`
		Replica     *replicaKeys  `yaml:"replica,omitempty"`
	}
	payloadKeys struct {
		Kind string `yaml:"kind"`
		File string `yaml:"file,omitempty"`
	}
	topicKeys struct {
		Partitions        int32             `yaml:"partitions"`
		ReplicationFactor int16             `yaml:"replication_factor,omitempty"`
		Configs           map[string]string `yaml:"configs,omitempty"`
	}
	producerKeys struct {
		Acks                  string `yaml:"acks,omitempty"`
		LingerMS              int    `yaml:"linger.ms,omitempty"`
		BatchSize             int    `yaml:"batch.size,omitempty"`
		BufferMemory          int64  `yaml:"buffer.memory,omitempty"`
		CompressionType       string `yaml:"compression.type,omitempty"`
		EnableIdempotence     *bool  `yaml:"enable.idempotence,omitempty"`
		TransactionalID       string `yaml:"transactional.id,omitempty"`
		TransactionDurationMS int    `yaml:"transaction.duration.ms,omitempty"`
	}
	consumerKeys struct {
		Enabled   *bool      `yaml:"enabled,omitempty"`
		GroupID   string     `yaml:"group.id,omitempty"`
		Kind      string     `yaml:"kind,omitempty"`
		Consumers int        `yaml:"consumers,omitempty"`
		Share     *shareKeys `yaml:"share,omitempty"`
	}
	shareKeys struct {
		GroupID string `yaml:"group.id"`
	}
	replicaKeys struct {
		Kafka       kafkaKeys `yaml:"kafka"`
		SourceAlias string    `yaml:"source_alias"`
		TargetAlias string    `yaml:"target_alias"`
	}
)

// writeYAML writes v as YAML to path.
func writeYAML(path string, v any) error {
	b, err := yaml.Marshal(v)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.WriteFile(path, b, 0o644)
}

// parseExtra reads more probe keys in YAML flow style without the braces,
// "producer: {linger.ms: 20}, round_interval: 0s" (footprint's PROBE_EXTRA).
func parseExtra(s string) (map[string]any, error) {
	if s == "" {
		return nil, nil
	}
	var m map[string]any
	if err := yaml.Unmarshal([]byte("{"+s+"}"), &m); err != nil {
		return nil, fmt.Errorf("PROBE_EXTRA %q: %w", s, err)
	}
	return m, nil
}

// withExtra is the probe p with more keys merged over its own: a mapping
// under a key is merged key by key, any other value replaces p's.
func withExtra(p probeKeys, extra map[string]any) (map[string]any, error) {
	b, err := yaml.Marshal(p)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := yaml.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	merge(m, extra)
	return m, nil
}

func merge(dst, src map[string]any) {
	for k, v := range src {
		sub, ok1 := v.(map[string]any)
		have, ok2 := dst[k].(map[string]any)
		if ok1 && ok2 {
			merge(have, sub)
			continue
		}
		dst[k] = v
	}
}
