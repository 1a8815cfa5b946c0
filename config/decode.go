package config

import (
	"fmt"
	"reflect"

	"go.yaml.in/yaml/v3"
)

// DecodeStrict checks n against the type of out with the rules of the
// configuration file (unknown keys, wrongly typed values) and then decodes it
// into out, which must be a pointer. Errors are one line,
// `<scope>: <path> = <value>: <problem>`, so that other files that embed
// probes (the bench file) report problems in the same words.
func DecodeStrict(n *yaml.Node, out any, scope, path string) error {
	t := reflect.TypeOf(out)
	if t == nil || t.Kind() != reflect.Pointer {
		return fmt.Errorf("config.DecodeStrict: out must be a pointer, got %T", out)
	}
	if err := checkNode(n, t.Elem(), scope, path); err != nil {
		return err
	}
	if err := n.Decode(out); err != nil {
		return fmt.Errorf("invalid YAML: %w", err)
	}
	return nil
}
