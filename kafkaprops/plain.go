package kafkaprops

import (
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Plain is the one home of a property that maps one to one onto its key of
// the probe's producer: or consumer: block: its default, the values it
// accepts, its docs and the franz-go options a value builds. The
// configuration's defaults, its validation, its strict decoder's keys and
// its reference docs, and the clients' options, are all read from it, so
// that a plain property is added as one row. A value is an int64 (INT,
// LONG), a bool (BOOLEAN) or a string (STRING).
type Plain struct {
	// Default is the value when the file does not set the key; nil makes
	// the key optional: unset, it builds no option (franz-go's default
	// applies, which DefaultDoc says).
	Default any
	// Min and Max bound an integer (Max 0: no upper bound); a value
	// outside is refused with "must be >= Min" (or "must be Min … Max"),
	// followed by Why in parentheses when set.
	Min, Max int64
	Why      string
	// Example is a valid value other than the default, which the tests
	// set to read the property back from a built client.
	Example any
	// DefaultDoc, Values and Doc are the reference's default (where the
	// value alone does not say it), accepted values (derived from Min
	// and Max when empty) and description; {x} is code, as in the
	// configuration's doc tags.
	DefaultDoc, Values, Doc string
	// Build is the franz-go options of a value; nil for a property the
	// probe applies itself (Options is then empty).
	Build func(v any) []kgo.Opt
}

// With makes row p a plain property.
func (p Property) With(pl Plain) Property {
	p.Plain = &pl
	return p
}

// GoValue is the Go type a plain value of type t is held in.
func (t Type) GoValue() any {
	switch t {
	case TypeBoolean:
		return false
	case TypeInt, TypeShort, TypeLong:
		return int64(0)
	}
	return ""
}

// Bits is the size of an integer type's values, as Kafka's ConfigDef
// parses them (INT is a Java int).
func (t Type) Bits() int {
	switch t {
	case TypeShort:
		return 16
	case TypeInt:
		return 32
	}
	return 64
}

// Check refuses value v of a plain property outside its range: the
// problem in the words of a configuration error, "" when v is accepted.
func (pl *Plain) Check(v any) string {
	n, ok := v.(int64)
	if !ok || (n >= pl.Min && (pl.Max == 0 || n <= pl.Max)) {
		return ""
	}
	return "must be " + pl.rangeText(">=")
}

// rangeText is pl's range, its lower bound alone written atLeast n, and
// the reason for it.
func (pl *Plain) rangeText(atLeast string) string {
	r := fmt.Sprintf("%s %d", atLeast, pl.Min)
	if pl.Max != 0 {
		r = fmt.Sprintf("%d … %d", pl.Min, pl.Max)
	}
	if pl.Why != "" {
		r += " (" + pl.Why + ")"
	}
	return r
}

// ValuesDoc is the values plain property p accepts as the reference
// writes them: Values, or its range.
func (p Property) ValuesDoc() string {
	pl := p.Plain
	switch {
	case pl.Values != "" || p.Type == TypeBoolean || p.Type == TypeString:
		return pl.Values
	}
	return pl.rangeText("≥")
}

// Plains are the plain properties of block ("producer" or "consumer"),
// by name.
func Plains(block string) []Property {
	var out []Property
	for _, p := range Properties {
		if p.Plain != nil && p.In&clientsOf(block) != 0 {
			out = append(out, p)
		}
	}
	return out
}

func clientsOf(block string) Clients {
	if block == "consumer" {
		return Consumer
	}
	return Producer
}

// Builders of the options of plain values.

// millis builds an option of a duration given in milliseconds.
func millis[O kgo.Opt](opt func(time.Duration) O) func(any) []kgo.Opt {
	return func(v any) []kgo.Opt { return []kgo.Opt{opt(time.Duration(v.(int64)) * time.Millisecond)} }
}

// bytes32 builds an option of an int32 size.
func bytes32[O kgo.Opt](opt func(int32) O) func(any) []kgo.Opt {
	return func(v any) []kgo.Opt { return []kgo.Opt{opt(int32(v.(int64)))} }
}

// when builds opt when the value is want (a boolean franz-go turns on or
// off with an option of no argument).
func when[O kgo.Opt](want bool, opt func() O) func(any) []kgo.Opt {
	return func(v any) []kgo.Opt {
		if v.(bool) != want {
			return nil
		}
		return []kgo.Opt{opt()}
	}
}
