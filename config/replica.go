package config

import (
	"strings"
	"time"

	"github.com/prometheus/common/model"
	"go.yaml.in/yaml/v3"

	"errors"
)

// Replica makes a probe also read its records from another cluster that a
// replicator (MirrorMaker 2, or a vendor's cluster linking) copies the probe
// topic to: the cross-cluster canary. The producer and the probe's own
// consumer stay on the kafka cluster; the replica reader measures the link.
// Absent (nil) means off.
type Replica struct {
	// Kafka reaches the target cluster: brokers, client_id, tls and sasl,
	// with the schema of the top-level kafka block. Its keys' docs are the
	// kafka block's, said of the target cluster (docas), but for those the
	// <key>.<doc tag> tags give.
	Kafka Kafka `yaml:"kafka" docas:"kafka" brokers.default:"(required)" brokers.doc:"bootstrap list of the target cluster" client_id.doc:"client.id of the replica reader"`
	// SourceAlias is the replicator's name for the probe's cluster, the
	// prefix MirrorMaker 2's default replication policy gives the copy.
	SourceAlias string `yaml:"source_alias" values:"letters, digits, {.}, {_}, {-}" doc:"the replicator's name for the probe's cluster: the copy is {<source_alias>.<topic>} under MirrorMaker 2's default replication policy"`
	// TargetAlias names the target cluster in the link label only.
	TargetAlias string `yaml:"target_alias" values:"letters, digits, {.}, {_}, {-}" doc:"names the target in the {link} label ({<source_alias>-><target_alias>})"`
	// TopicPolicy is how the copy is named: "default" (MirrorMaker 2's
	// DefaultReplicationPolicy, <source_alias>.<topic>) or "identity"
	// (IdentityReplicationPolicy and most cluster links: the same name).
	TopicPolicy string `yaml:"topic_policy" values:"{default}, {identity}" doc:"how the copy is named: {default} ({<source_alias>.<topic>}, MirrorMaker 2's DefaultReplicationPolicy) or {identity} (the same name: IdentityReplicationPolicy, most cluster links)"`
	// Topic, when set, is the copy's name, whatever the policy.
	Topic string `yaml:"topic" default:"(from the policy)" doc:"the copy's name, whatever the policy (a custom separator or policy)"`
	// LossGracePeriod is how long a record the source acknowledged may
	// stay unread on the target before it counts as lost across the link.
	LossGracePeriod model.Duration `yaml:"loss_grace_period" values:"> 0" doc:"a record the source acknowledged and the replica has not shown this long after its acknowledgement counts as lost across the link"`
}

// Replica defaults.
const (
	DefaultSourceAlias     = "source"
	DefaultTargetAlias     = "target"
	TopicPolicyDefault     = "default"
	TopicPolicyIdentity    = "identity"
	DefaultReplicaLossWait = 5 * time.Minute
)

// SetDefaults fills what the replica block does not set.
func (r *Replica) SetDefaults() {
	r.Kafka.SetDefaults()
	r.SourceAlias = DefaultSourceAlias
	r.TargetAlias = DefaultTargetAlias
	r.TopicPolicy = TopicPolicyDefault
	r.LossGracePeriod = model.Duration(DefaultReplicaLossWait)
}

// UnmarshalYAML fills the defaults before the file's keys apply.
func (r *Replica) UnmarshalYAML(n *yaml.Node) error {
	r.SetDefaults()
	type plain Replica
	return n.Decode((*plain)(r))
}

// Link is the `link` label of the replication metrics: source->target.
func (r *Replica) Link() string { return r.SourceAlias + "->" + r.TargetAlias }

// TopicFor is the name of the copy of the probe topic on the target.
func (r *Replica) TopicFor(sourceTopic string) string {
	switch {
	case r.Topic != "":
		return r.Topic
	case r.TopicPolicy == TopicPolicyIdentity:
		return sourceTopic
	}
	return r.SourceAlias + "." + sourceTopic
}

// aliasChars: an alias becomes part of a topic name and of a label value.
const aliasChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-"

func validAlias(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !strings.ContainsRune(aliasChars, c) {
			return false
		}
	}
	return true
}

func (r *Replica) validate(s string) error {
	switch {
	case len(r.Kafka.Brokers) == 0:
		return FieldError(s, "replica.kafka.brokers", "", "must list the target cluster's brokers (the embedded cluster has no replica)")
	case !validAlias(r.SourceAlias):
		return FieldError(s, "replica.source_alias", r.SourceAlias, "must be non-empty and use only letters, digits, '.', '_' and '-'")
	case !validAlias(r.TargetAlias):
		return FieldError(s, "replica.target_alias", r.TargetAlias, "must be non-empty and use only letters, digits, '.', '_' and '-'")
	case r.TopicPolicy != TopicPolicyDefault && r.TopicPolicy != TopicPolicyIdentity:
		return FieldError(s, "replica.topic_policy", r.TopicPolicy, `must be "default" (<source_alias>.<topic>) or "identity" (the same name)`)
	case r.LossGracePeriod <= 0:
		return FieldError(s, "replica.loss_grace_period", r.LossGracePeriod, "must be > 0")
	}
	if err := r.Kafka.Validate(); err != nil {
		// The kafka block's checks name its keys; here they are the
		// replica's.
		return replicaError(s, err)
	}
	return nil
}

// replicaError names the keys of a replica block's error as the replica's.
func replicaError(scope string, err error) error {
	msg := err.Error()
	for _, k := range []string{"kafka.brokers", "kafka.tls.", "kafka.sasl."} {
		msg = strings.ReplaceAll(msg, k, "replica."+k)
	}
	return errors.New(scope + ": " + msg)
}
