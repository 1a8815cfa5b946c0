package config

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/prometheus/common/model"
	"go.yaml.in/yaml/v3"

	"github.com/kafka-bench/kafka_bench_exporter/kafkaprops"
	"github.com/kafka-bench/kafka_bench_exporter/redact"
)

// checkNode walks the YAML tree against the Go type it will be decoded into,
// before decoding, so that an unknown key or a value of the wrong type is
// reported as one line naming the probe, the key and the value — yaml.v3's own
// errors only give a line number and a Go type name.
func checkNode(n *yaml.Node, t reflect.Type, scope, path string) error {
	if n == nil || n.Tag == "!!null" {
		return nil
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == reflect.TypeFor[model.Duration]() {
		if _, err := model.ParseDuration(n.Value); n.Kind != yaml.ScalarNode || err != nil {
			// model.Duration has no sign: say so rather than "not a duration".
			if _, err := model.ParseDuration(strings.TrimPrefix(n.Value, "-")); err == nil && strings.HasPrefix(n.Value, "-") {
				return nodeError(scope, path, n, "must not be negative")
			}
			return nodeError(scope, path, n, "must be a duration such as 500ms, 30s or 5m")
		}
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		return checkStruct(n, t, scope, path)
	case reflect.Slice:
		return checkSlice(n, t, scope, path)
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			return nodeError(scope, path, n, "must be a mapping of name: value")
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if err := checkNode(v, t.Elem(), scope, join(path, k.Value)); err != nil {
				return err
			}
		}
		return nil
	}
	if n.Kind != yaml.ScalarNode {
		return nodeError(scope, path, n, "must be a single value")
	}
	return checkScalar(n, t, scope, path)
}

func checkScalar(n *yaml.Node, t reflect.Type, scope, path string) error {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if n.Tag == "!!str" {
			return nodeError(scope, path, n, "must be an integer")
		}
		if _, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, t.Bits()); err != nil {
			if _, ferr := strconv.ParseFloat(n.Value, 64); ferr == nil && n.Tag != "!!float" {
				return nodeError(scope, path, n, fmt.Sprintf("out of range for a %d-bit integer", t.Bits()))
			}
			return nodeError(scope, path, n, "must be an integer")
		}
	case reflect.Float32, reflect.Float64:
		if _, err := strconv.ParseFloat(n.Value, 64); err != nil || n.Tag == "!!str" {
			return nodeError(scope, path, n, "must be a number")
		}
	case reflect.Bool:
		if n.Tag != "!!bool" {
			return nodeError(scope, path, n, "must be true or false")
		}
	case reflect.String:
		// Any scalar is a string: acks: 1 and acks: "1" mean the same.
	}
	return nil
}

func checkStruct(n *yaml.Node, t reflect.Type, scope, path string) error {
	if n.Kind != yaml.MappingNode {
		return nodeError(scope, path, n, "must be a mapping")
	}
	fields := yamlFields(t)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		f, ok := fields[k.Value]
		if !ok {
			return unknownKeyError(scope, join(path, k.Value), nodeValue(v), holdsSecret(fields), unknownKeyProblem(path, k.Value, fields))
		}
		if err := checkNode(v, f.Type, scope, join(path, k.Value)); err != nil {
			return err
		}
	}
	return nil
}

// unknownKeyError is the error of a key its block does not have, in the
// YAML or in a properties file: beside secrets (amongSecrets) it is most
// likely a misspelt secret key (password_fiel, sasl.jaas.confg), so its
// value is shown as <secret>.
func unknownKeyError(scope, key string, value any, amongSecrets bool, problem string) error {
	if amongSecrets {
		value = RawValue(redact.Redacted)
	}
	return FieldError(scope, key, value, problem)
}

func holdsSecret(fields map[string]reflect.StructField) bool {
	for _, f := range fields {
		if f.Type == reflect.TypeFor[Secret]() {
			return true
		}
	}
	return false
}

func checkSlice(n *yaml.Node, t reflect.Type, scope, path string) error {
	if n.Kind != yaml.SequenceNode {
		return nodeError(scope, path, n, "must be a list")
	}
	for i, item := range n.Content {
		itemScope, itemPath := scope, fmt.Sprintf("%s[%d]", path, i)
		// Errors inside a probe (or a bench file's host) are named by it,
		// as operators know it.
		if path == "probes" || path == "hosts" {
			itemScope, itemPath = itemNameScope(item, path, i), ""
		}
		if err := checkNode(item, t.Elem(), itemScope, itemPath); err != nil {
			return err
		}
	}
	return nil
}

// itemNameScope is `probe "name"` (or `host "name"`), or `probes[i]` for
// an item without a name.
func itemNameScope(item *yaml.Node, list string, i int) string {
	if item.Kind == yaml.MappingNode {
		for j := 0; j+1 < len(item.Content); j += 2 {
			if item.Content[j].Value == "name" && item.Content[j+1].Value != "" {
				return fmt.Sprintf("%s %q", strings.TrimSuffix(list, "s"), item.Content[j+1].Value)
			}
		}
	}
	return fmt.Sprintf("%s[%d]", list, i)
}

// yamlFields are t's keys by name (Fields).
func yamlFields(t reflect.Type) map[string]reflect.StructField {
	fields := map[string]reflect.StructField{}
	for _, f := range Fields(t) {
		fields[f.Name] = f.StructField
	}
	return fields
}

// unknownKeyProblem tells a Kafka property the probe does not map apart
// from a typo, saying why (kafkaprops), and lists what is supported.
func unknownKeyProblem(path, key string, fields map[string]reflect.StructField) string {
	if path == "producer" || path == "consumer" {
		if p, ok := kafkaprops.Lookup(path, key); ok && p.Class != kafkaprops.Mapped {
			if p.Class == kafkaprops.Refused {
				return "Kafka " + path + " property franz-go cannot express: " + p.Note
			}
			return "Kafka " + path + " property not applicable to the probe: " + p.Note
		}
	}
	known := make([]string, 0, len(fields))
	for k := range fields {
		known = append(known, k)
	}
	sort.Strings(known)
	return fmt.Sprintf("unknown key (supported: %s)", strings.Join(known, ", "))
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func nodeError(scope, path string, n *yaml.Node, problem string) error {
	return FieldError(scope, path, nodeValue(n), problem)
}

// nodeValue is how an error shows node n: a string quoted, another scalar
// as written, a mapping or a list elided.
func nodeValue(n *yaml.Node) any {
	switch {
	case n.Kind == yaml.MappingNode:
		return RawValue("{...}")
	case n.Kind == yaml.SequenceNode:
		return RawValue("[...]")
	case n.Tag == "!!str":
		return n.Value
	}
	return RawValue(n.Value)
}

// RawValue prints a non-string scalar as written (no quotes).
type RawValue string

func (r RawValue) String() string { return string(r) }
