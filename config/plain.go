package config

import (
	"reflect"

	"github.com/kafka-bench/kafka_bench_exporter/kafkaprops"
)

// The plain Kafka properties of the producer: and consumer: blocks
// (kafkaprops.Plain) are rows of kafkaprops: their defaults, validation,
// keys and docs are read from the rows here, so that a plain property is
// added as a row. One the engine reads has a field of its block, keyed by
// its name; the others are held in the block's Props.

// Props holds a block's plain properties that have no field of their
// own, by name: the block's inline YAML keys that are rows of kafkaprops.
type Props map[string]any

// plainBlock is the block ("producer", "consumer") whose plain properties
// struct type t holds, from the kafka tag of its Props field; "" if none.
func plainBlock(t reflect.Type) string {
	for f := range t.Fields() {
		if f.Type == reflect.TypeFor[Props]() {
			return f.Tag.Get("kafka")
		}
	}
	return ""
}

// rowType is the Go type of a plain property's values as the file writes
// them: an INT is a Java int.
func rowType(t kafkaprops.Type) reflect.Type {
	switch t {
	case kafkaprops.TypeBoolean:
		return reflect.TypeFor[bool]()
	case kafkaprops.TypeShort:
		return reflect.TypeFor[int16]()
	case kafkaprops.TypeInt:
		return reflect.TypeFor[int32]()
	case kafkaprops.TypeLong:
		return reflect.TypeFor[int64]()
	}
	return reflect.TypeFor[string]()
}

// Property is plain property name of the producer: block, as an int64, a
// bool or a string, and whether it is set.
func (p *Producer) Property(name string) (any, bool) {
	return property(reflect.ValueOf(p).Elem(), p.Props, name)
}

// Property is plain property name of the consumer: block, as an int64, a
// bool or a string, and whether it is set.
func (c *Consumer) Property(name string) (any, bool) {
	return property(reflect.ValueOf(c).Elem(), c.Props, name)
}

// field is the field of struct v keyed name.
func field(v reflect.Value, name string) (reflect.Value, bool) {
	for f := range v.Type().Fields() {
		if f.Type != reflect.TypeFor[Props]() && yamlName(f) == name {
			return v.FieldByIndex(f.Index), true
		}
	}
	return reflect.Value{}, false
}

func property(v reflect.Value, props Props, name string) (any, bool) {
	if f, ok := field(v, name); ok {
		for f.Kind() == reflect.Pointer {
			if f.IsNil() {
				return nil, false
			}
			f = f.Elem()
		}
		return canonical(f)
	}
	x, ok := props[name]
	if !ok || x == nil {
		return nil, false
	}
	return canonical(reflect.ValueOf(x))
}

// canonical is a value as kafkaprops holds it: int64, bool or string.
func canonical(v reflect.Value) (any, bool) {
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int(), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return int64(v.Uint()), true // #nosec G115 -- the strict decoder bounded it to the row's type
	case reflect.Bool:
		return v.Bool(), true
	case reflect.String:
		return v.String(), true
	}
	return v.Interface(), true
}

// setPlainDefaults sets the defaults of block's plain properties in v (a
// *Producer or *Consumer) and its props.
func setPlainDefaults(block string, v reflect.Value, props *Props) {
	v = v.Elem()
	for _, row := range kafkaprops.Plains(block) {
		d := row.Plain.Default
		if d == nil {
			continue
		}
		if f, ok := field(v, row.Name); ok {
			switch x := d.(type) {
			case int64:
				f.SetInt(x)
			case bool:
				f.SetBool(x)
			case string:
				f.SetString(x)
			}
			continue
		}
		if *props == nil {
			*props = Props{}
		}
		(*props)[row.Name] = d
	}
}

// validatePlain checks the ranges of block's plain properties in v (a
// *Producer or *Consumer).
func validatePlain(s, block string, v reflect.Value, props Props) error {
	for _, row := range kafkaprops.Plains(block) {
		x, ok := property(v.Elem(), props, row.Name)
		if !ok {
			continue
		}
		if problem := row.Plain.Check(x); problem != "" {
			return FieldError(s, block+"."+row.Name, x, problem)
		}
	}
	return nil
}

// plainFields are the keys of the plain properties of block without a
// field of their own in t, as fields of t's Props.
func plainFields(t reflect.Type, block string, props reflect.StructField) []Field {
	var out []Field
	for _, row := range kafkaprops.Plains(block) {
		if _, ok := field(reflect.New(t).Elem(), row.Name); ok {
			continue
		}
		f := props
		f.Type, f.Tag = rowType(row.Type), reflect.StructTag(`yaml:"`+row.Name+`"`)
		out = append(out, Field{Name: row.Name, StructField: f, Row: &row})
	}
	return out
}
