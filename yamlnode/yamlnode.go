// Package yamlnode edits YAML mapping nodes: the bench file's matrix and
// defaults (bench/spec) and a Kafka client properties file merged under the
// configuration (config) are applied as nodes, before strict decoding, so
// that their errors name the keys a user wrote.
package yamlnode

import "go.yaml.in/yaml/v3"

// Lookup is the value of key in mapping m; nil if m is not a mapping or
// lacks key.
func Lookup(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// Put sets key of mapping m to v, replacing its value or adding the key.
func Put(m *yaml.Node, key string, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i+1] = v
			return
		}
	}
	m.Content = append(m.Content, Str(key), v)
}

// SetPath sets the value at path in mapping m to v, making the mappings on
// the way.
func SetPath(m *yaml.Node, path []string, v *yaml.Node) {
	for _, key := range path[:len(path)-1] {
		next := Lookup(m, key)
		if next == nil || next.Kind != yaml.MappingNode {
			next = Mapping()
			Put(m, key, next)
		}
		m = next
	}
	Put(m, path[len(path)-1], v)
}

// Merge merges mapping src into mapping dst, nested mappings key by key.
// Where both set a key to something other than two mappings, src's value
// (a deep copy) wins, unless keepDst: then dst's stays.
func Merge(dst, src *yaml.Node, keepDst bool) {
	if src.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(src.Content); i += 2 {
		k, v := src.Content[i], src.Content[i+1]
		cur := Lookup(dst, k.Value)
		switch {
		case cur != nil && cur.Kind == yaml.MappingNode && v.Kind == yaml.MappingNode:
			Merge(cur, v, keepDst)
		case cur != nil && keepDst:
		default:
			Put(dst, k.Value, DeepCopy(v))
		}
	}
}

// DeepCopy is a copy of n sharing nothing with it.
func DeepCopy(n *yaml.Node) *yaml.Node {
	c := *n
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, x := range n.Content {
		c.Content[i] = DeepCopy(x)
	}
	return &c
}

// Mapping is an empty mapping node.
func Mapping() *yaml.Node { return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"} }

// Str is a string scalar: a value of digits stays a string.
func Str(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v} }
