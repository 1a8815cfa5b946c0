package spec

import (
	"reflect"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kafka-bench/kafka_bench_exporter/config"
)

// axis is one matrix key: where its values go in a probe, and the values.
type axis struct {
	key    string // as written in the file, used in names and columns
	path   []string
	values []*yaml.Node
	// setting is set for a broker or topic key (configkeys.go), whose
	// values go to the cluster, not into the probe.
	setting *ConfigSetting
}

// probeKey is one settable probe field, by its path of YAML keys.
type probeKey struct {
	path []string
	typ  reflect.Type
}

// parseMatrix resolves the matrix keys and checks every value against the
// type of the probe field it sets.
func parseMatrix(n *yaml.Node) ([]axis, error) {
	if n.Kind == 0 || n.Tag == "!!null" {
		return nil, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, config.DecodeStrict(n, &map[string][]any{}, "", "matrix")
	}
	keys := probeKeys()
	byPath := map[string]string{}
	var axes []axis
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		setting, isSetting, err := parseConfigKey("matrix", k.Value, v)
		if err != nil {
			return nil, err
		}
		a := axis{key: k.Value}
		var check func(item *yaml.Node) error
		if isSetting {
			a.setting = &setting
			check = func(item *yaml.Node) error { _, err := configValue("matrix", k.Value, item); return err }
		} else {
			pk, err := resolveKey(keys, k.Value, v)
			if err != nil {
				return nil, err
			}
			full := strings.Join(pk.path, ".")
			if other, ok := byPath[full]; ok {
				return nil, config.FieldError("matrix", k.Value, nodeValue(v), "sets the same probe key as "+other)
			}
			byPath[full] = k.Value
			a.path = pk.path
			check = func(item *yaml.Node) error {
				return config.DecodeStrict(item, reflect.New(pk.typ).Interface(), "matrix", k.Value)
			}
		}
		if v.Kind != yaml.SequenceNode {
			return nil, config.FieldError("matrix", k.Value, nodeValue(v), "must be a list of values")
		}
		if len(v.Content) == 0 {
			return nil, config.FieldError("matrix", k.Value, nodeValue(v), "must list at least one value")
		}
		seen := map[string]bool{}
		for _, item := range v.Content {
			if err := check(item); err != nil {
				return nil, err
			}
			if seen[item.Value] {
				return nil, config.FieldError("matrix", k.Value, nodeValue(item), "listed twice")
			}
			seen[item.Value] = true
		}
		a.values = v.Content
		axes = append(axes, a)
	}
	return axes, nil
}

// resolveKey maps a short matrix key (partitions, acks, linger.ms) or a full
// one (create_topic.partitions) onto its probe field.
func resolveKey(keys map[string][]probeKey, key string, v *yaml.Node) (probeKey, error) {
	cands := keys[key]
	switch len(cands) {
	case 1:
		return cands[0], nil
	case 0:
		return probeKey{}, config.FieldError("matrix", key, nodeValue(v),
			"unknown key: a matrix key is a probe key (record_size, rate, partitions, replication_factor, acks, linger.ms, batch.size, fetch.max.bytes, consumers, ...) or its full path (producer.acks)")
	}
	full := make([]string, len(cands))
	for i, c := range cands {
		full[i] = strings.Join(c.path, ".")
	}
	sort.Strings(full)
	return probeKey{}, config.FieldError("matrix", key, nodeValue(v), "ambiguous: say "+strings.Join(full, " or "))
}

// probeKeys lists every scalar probe field under its short name (the last
// key) and its full path; a short name shared by two fields (enabled) lists
// both, so it is reported as ambiguous.
func probeKeys() map[string][]probeKey {
	keys := map[string][]probeKey{}
	add := func(name string, k probeKey) { keys[name] = append(keys[name], k) }
	config.Walk(reflect.TypeFor[config.Probe](), func(k config.Key) bool {
		name := k.Parts[len(k.Parts)-1]
		switch {
		case len(k.Parts) == 1 && name == "name":
		case len(k.Parts) == 1 && k.Field.Type.Kind() != reflect.Struct:
			add(name, probeKey{path: k.Parts, typ: k.Field.Type})
		case len(k.Parts) == 1:
			return true
		case k.Field.Type.Kind() != reflect.Map:
			pk := probeKey{path: k.Parts, typ: k.Field.Type}
			add(name, pk)
			add(strings.Join(k.Parts, "."), pk)
		}
		return false
	})
	return keys
}

// axisSettings are the broker and topic settings of one combination.
func axisSettings(axes []axis, combo []int) []ConfigSetting {
	var out []ConfigSetting
	for i, a := range axes {
		if a.setting != nil {
			s := *a.setting
			s.Value = a.values[combo[i]].Value
			out = append(out, s)
		}
	}
	return out
}

// cartesian lists every combination of one value index per axis, the first
// axis varying slowest (as the seeds' tables are ordered).
func cartesian(axes []axis) [][]int {
	combos := [][]int{{}}
	for _, a := range axes {
		next := make([][]int, 0, len(combos)*len(a.values))
		for _, c := range combos {
			for i := range a.values {
				next = append(next, append(slices.Clone(c), i))
			}
		}
		combos = next
	}
	return combos
}

// nodeValue is how a value is shown in an error: strings quoted, other
// scalars as written, collections abbreviated.
func nodeValue(n *yaml.Node) any {
	switch {
	case n.Kind == yaml.MappingNode:
		return config.RawValue("{...}")
	case n.Kind == yaml.SequenceNode:
		return config.RawValue("[...]")
	case n.Tag == "!!str":
		return n.Value
	}
	return config.RawValue(n.Value)
}
