package spec

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kafka-bench/kafka_bench_exporter/config"
)

// Prefixes of the bench keys that change the cluster rather than the probe.
const (
	brokerPrefix = "broker."
	topicPrefix  = "topic."
)

// configNameRE is the shape of Kafka's configuration names.
var configNameRE = regexp.MustCompile(`^[a-z][a-z0-9._-]*[a-z0-9]$`)

// AllBrokers as ConfigSetting.Broker: the setting applies to every broker.
const AllBrokers = -1

// ConfigSetting is one broker or topic configuration a scenario sets for its
// run: `broker.<name>` (every broker), `broker.<id>.<name>` (one broker) or
// `topic.<name>` (the scenario's topic).
type ConfigSetting struct {
	Key    string // as written in the bench file
	Topic  bool   // a topic configuration, else a broker one
	Broker int32  // the broker id, or AllBrokers
	Name   string // Kafka's configuration name
	Value  string
}

// parseConfigKey recognises a broker or topic key; ok is false for any other
// key (a probe key).
func parseConfigKey(scope, key string, v *yaml.Node) (s ConfigSetting, ok bool, err error) {
	rest, isBroker := strings.CutPrefix(key, brokerPrefix)
	if !isBroker {
		var isTopic bool
		if rest, isTopic = strings.CutPrefix(key, topicPrefix); !isTopic {
			return s, false, nil
		}
	}
	s = ConfigSetting{Key: key, Topic: !isBroker, Broker: AllBrokers, Name: rest}
	if isBroker {
		if id, name, found := strings.Cut(rest, "."); found && isDigits(id) {
			n, perr := strconv.ParseInt(id, 10, 32)
			if perr != nil {
				return s, true, config.FieldError(scope, key, nodeValue(v), "broker id "+id+" is out of range")
			}
			s.Broker, s.Name = int32(n), name
		}
	}
	switch {
	case s.Name == "":
		return s, true, config.FieldError(scope, key, nodeValue(v), "names no configuration: write broker.<name>, broker.<id>.<name> or topic.<name>")
	case !configNameRE.MatchString(s.Name):
		return s, true, config.FieldError(scope, key, nodeValue(v), fmt.Sprintf("%q is not a Kafka configuration name (lower-case letters, digits, '.', '_' and '-')", s.Name))
	}
	return s, true, nil
}

// configValue checks that v is one scalar value and returns it as Kafka
// takes it, a string.
func configValue(scope, key string, v *yaml.Node) (string, error) {
	if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
		shown := nodeValue(v)
		if v.Tag == "!!null" {
			shown = config.RawValue("null")
		}
		return "", config.FieldError(scope, key, shown, "must be a single value (a string, number or boolean)")
	}
	return v.Value, nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// splitConfigKeys takes the broker and topic keys out of a mapping of probe
// keys (defaults or a scenario), so that the rest is checked as a probe.
func splitConfigKeys(n *yaml.Node, scope string) (probe *yaml.Node, settings []ConfigSetting, err error) {
	if n.Kind != yaml.MappingNode {
		return n, nil, nil
	}
	probe = &yaml.Node{Kind: n.Kind, Tag: n.Tag, Line: n.Line, Column: n.Column}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		s, ok, err := parseConfigKey(scope, k.Value, v)
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			probe.Content = append(probe.Content, k, v)
			continue
		}
		if s.Value, err = configValue(scope, k.Value, v); err != nil {
			return nil, nil, err
		}
		settings = append(settings, s)
	}
	return probe, settings, nil
}

// mergeSettings lays over on top of under, key by key, sorted by key.
func mergeSettings(under, over []ConfigSetting) []ConfigSetting {
	byKey := map[string]ConfigSetting{}
	for _, s := range append(append([]ConfigSetting{}, under...), over...) {
		byKey[s.Key] = s
	}
	out := make([]ConfigSetting, 0, len(byKey))
	for _, s := range byKey {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}
