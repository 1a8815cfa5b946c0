package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
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

// OneDocument parses data as one YAML document; an empty file (or one of
// comments only) is a document without content. A second document (after a
// ---) is refused, for what (the configuration file, the bench file) is one
// document: the decoder would silently ignore it, and nothing checks,
// redacts or shows what it holds.
func OneDocument(data []byte, what string) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("invalid YAML: %w", err)
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case errors.Is(err, io.EOF):
		return &doc, nil
	case err != nil:
		return nil, fmt.Errorf("invalid YAML: %w", err)
	}
	return nil, fmt.Errorf("invalid YAML: line %d: a second document (---): %s is one YAML document", next.Line, what)
}
