package configwatch

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-bench/kafka_bench_exporter/redact"
)

// Kind is the kind of resource a change belongs to.
type Kind string

// Kinds of resources.
const (
	KindBroker  Kind = "broker"
	KindTopic   Kind = "topic"
	KindCluster Kind = "cluster"
)

// Entry is one configuration key as Kafka described it. A sensitive key
// keeps no value: Kafka sends none, and one sent anyway is dropped here, so
// that it cannot reach a log line, a hash, a metric or /changes. A key is
// sensitive when the broker says so or its name says so
// (redact.SensitiveKey): a broker other than Apache Kafka's may not set the
// flag.
type Entry struct {
	Value     string
	Null      bool // Kafka described the key without a value
	Source    kmsg.ConfigSource
	Sensitive bool
}

// Configs is the whole described configuration of one broker or topic.
type Configs map[string]Entry

// fromDescribe converts one resource of a DescribeConfigs answer.
func fromDescribe(rc kadm.ResourceConfig) Configs {
	out := make(Configs, len(rc.Configs))
	for _, c := range rc.Configs {
		e := Entry{Source: c.Source, Sensitive: c.Sensitive || redact.SensitiveKey(c.Key)}
		switch {
		case e.Sensitive:
		case c.Value == nil:
			e.Null = true
		default:
			e.Value = *c.Value
		}
		out[c.Key] = e
	}
	return out
}

// tracked reports whether a key is part of what is hashed and diffed. For a
// broker that is every key not at Kafka's built-in default (server.properties
// and dynamic settings). For a topic it is the keys set on the topic itself:
// inherited broker values are tracked on the brokers, once, and would
// otherwise depend on which broker answered.
func tracked(kind Kind, e Entry) bool {
	if kind == KindTopic {
		return e.Source == kmsg.ConfigSourceDynamicTopicConfig || e.Source == kmsg.ConfigSourceUnknown
	}
	return e.Source != kmsg.ConfigSourceDefaultConfig
}

// sensitiveMark stands for a sensitive key's value in the hash: the hash
// notices that such a key is set or unset, never its value.
const sensitiveMark = "\x00sensitive"

func (e Entry) comparable() string {
	switch {
	case e.Sensitive:
		return sensitiveMark
	case e.Null:
		return "\x00null"
	}
	return e.Value
}

// display is the value shown in logs and /changes; "" for a sensitive key.
func (e Entry) display() string {
	switch {
	case e.Sensitive:
		return ""
	case e.Null:
		return "null"
	}
	return e.Value
}

// Hash is a short hash of the tracked keys and values: equal hashes mean an
// equal tracked configuration. Sensitive keys count by name only.
func (c Configs) Hash(kind Kind) string {
	keys := c.trackedKeys(kind)
	h := sha256.New()
	for _, k := range keys {
		// Length-prefixed, so that no split of key and value collides.
		v := c[k].comparable()
		_, _ = fmt.Fprintf(h, "%d:%s%d:%s", len(k), k, len(v), v) // a hash never fails a write
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

func (c Configs) trackedKeys(kind Kind) []string {
	keys := make([]string, 0, len(c))
	for k, e := range c {
		if tracked(kind, e) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// KeyChange is one key whose tracked value differs between two polls. Old
// and New are the effective values (a key set back to its default shows the
// default); both are empty for a sensitive key. A source is empty when the
// key was not described at all.
type KeyChange struct {
	Key       string
	Old, New  string
	OldSource string
	NewSource string
	Sensitive bool
}

// Diff returns the keys whose tracked value differs, sorted by key.
func Diff(kind Kind, old, cur Configs) []KeyChange {
	keys := append(old.trackedKeys(kind), cur.trackedKeys(kind)...)
	slices.Sort(keys)
	keys = slices.Compact(keys)
	var out []KeyChange
	for _, k := range keys {
		o, inOld := old[k]
		n, inNew := cur[k]
		if trackedValue(kind, o, inOld) == trackedValue(kind, n, inNew) {
			continue
		}
		kc := KeyChange{Key: k, Sensitive: o.Sensitive || n.Sensitive}
		if inOld {
			kc.OldSource = o.Source.String()
		}
		if inNew {
			kc.NewSource = n.Source.String()
		}
		if !kc.Sensitive {
			kc.Old, kc.New = o.display(), n.display()
		}
		out = append(out, kc)
	}
	return out
}

// trackedValue is what Diff compares: "" for an untracked or absent key,
// which no tracked value can equal.
func trackedValue(kind Kind, e Entry, ok bool) string {
	if !ok || !tracked(kind, e) {
		return ""
	}
	return "\x01" + e.comparable()
}
