package spec

import "go.yaml.in/yaml/v3"

// mergeMapping merges src into dst: nested mappings merge key by key, any
// other value replaces dst's.
func mergeMapping(dst, src *yaml.Node) {
	if src.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(src.Content); i += 2 {
		k, v := src.Content[i], src.Content[i+1]
		if cur := lookup(dst, k.Value); cur != nil && cur.Kind == yaml.MappingNode && v.Kind == yaml.MappingNode {
			mergeMapping(cur, v)
			continue
		}
		put(dst, k.Value, deepCopy(v))
	}
}

// setPath sets the value at path, creating the mappings on the way.
func setPath(m *yaml.Node, path []string, v *yaml.Node) {
	for _, key := range path[:len(path)-1] {
		next := lookup(m, key)
		if next == nil || next.Kind != yaml.MappingNode {
			next = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			put(m, key, next)
		}
		m = next
	}
	put(m, path[len(path)-1], deepCopy(v))
}

func lookup(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func put(m *yaml.Node, key string, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i+1] = v
			return
		}
	}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, v)
}

func deepCopy(n *yaml.Node) *yaml.Node {
	c := *n
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, x := range n.Content {
		c.Content[i] = deepCopy(x)
	}
	return &c
}

func mappingValue(n *yaml.Node, key string) string {
	if n.Kind != yaml.MappingNode {
		return ""
	}
	if v := lookup(n, key); v != nil && v.Kind == yaml.ScalarNode {
		return v.Value
	}
	return ""
}
