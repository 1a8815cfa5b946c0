package config

import (
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kafka-bench/kafka_bench_exporter/kafkaprops"
	"github.com/kafka-bench/kafka_bench_exporter/redact"
)

// The one walk over the YAML keys of a configuration type. Strict decoding
// (strict.go) reads one level of it, the bench matrix the probe's keys and
// the reference page (docs/reference/config.md) every key, so that the
// three agree on what a key is.

// Field is one key of a struct, by its name in the file.
type Field struct {
	Name string
	reflect.StructField
	// Row is the key's row in kafkaprops when it is a plain Kafka
	// property (kafkaprops.Plain), whose docs and checks it holds.
	Row *kafkaprops.Property
}

// Fields are t's keys in declaration order: a field's yaml tag names it (no
// name is the lower-cased Go name, as yaml.v3 decodes it); unexported
// fields and those tagged "-" are no keys. A block's Props stands for the
// plain properties of kafkaprops without a field of their own (their
// StructField is Props', of the type of their values).
func Fields(t reflect.Type) []Field {
	var out []Field
	block := plainBlock(t)
	for f := range t.Fields() {
		name := yamlName(f)
		switch {
		case name == "-" || !f.IsExported():
			continue
		case f.Type == reflect.TypeFor[Props]():
			out = append(out, plainFields(t, block, f)...)
			continue
		}
		field := Field{Name: name, StructField: f}
		if block != "" {
			if row, ok := kafkaprops.Lookup(block, name); ok && row.Plain != nil {
				field.Row = &row
			}
		}
		out = append(out, field)
	}
	return out
}

// yamlName is the key of field f.
func yamlName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	if name == "" {
		name = strings.ToLower(f.Name)
	}
	return name
}

// Key is one key of a configuration type, reached from its root.
type Key struct {
	// Path is the key as the docs write it: probes[].producer.acks (a
	// list of blocks adds []).
	Path string
	// Parts are the names from the root, without list marks.
	Parts []string
	// Field is the Go field; Type is its type without pointers.
	Field reflect.StructField
	Type  reflect.Type
	// Block: keys below it, in a struct or (List) in each item of a list.
	Block, List bool
	// Row is the key's row in kafkaprops when it is a plain Kafka
	// property.
	Row *kafkaprops.Property
}

// Secret reports a key whose value is never shown.
func (k Key) Secret() bool { return k.Type == reflect.TypeFor[Secret]() }

var (
	yamlMarshaler = reflect.TypeFor[yaml.Marshaler]()
	yamlNode      = reflect.TypeFor[yaml.Node]()
)

// Walk calls visit for every key of the struct type t, depth first in
// declaration order, and goes into a block when visit returns true.
func Walk(t reflect.Type, visit func(Key) bool) {
	walk(t, "", nil, visit)
}

func walk(t reflect.Type, prefix string, parts []string, visit func(Key) bool) {
	for _, f := range Fields(t) {
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		k := Key{Path: strings.TrimPrefix(prefix+"."+f.Name, "."), Parts: append(slices.Clip(parts), f.Name), Field: f.StructField, Type: ft, Row: f.Row}
		below := ft
		switch {
		// A struct that prints itself is a value, unless it has keys of
		// its own (Payload quotes its delimiter); so is a yaml.Node, YAML
		// its owner reads itself (a bench file's scenarios).
		case ft == yamlNode:
		case ft.Kind() == reflect.Struct && (!ft.Implements(yamlMarshaler) || len(Fields(ft)) > 0):
			k.Block = true
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
			k.Block, k.List, below = true, true, ft.Elem()
		}
		if visit(k) && k.Block {
			path := k.Path
			if k.List {
				path += "[]"
			}
			walk(below, path, k.Parts, visit)
		}
	}
}

// Keys are every key of t, blocks included.
func Keys(t reflect.Type) []Key {
	var out []Key
	Walk(t, func(k Key) bool { out = append(out, k); return true })
	return out
}

// URLKeys are the paths of t's URL-valued keys (URLKey), such as
// kafka.sasl.oauth.token_endpoint and hosts[].url, for the tests that hold
// every one of them to the redaction rule.
func URLKeys(t reflect.Type) []string {
	var out []string
	Walk(t, func(k Key) bool {
		if !k.Block && redact.URLKey(k.Path) {
			out = append(out, k.Path)
		}
		return true
	})
	return out
}
