package spec

import (
	"go.yaml.in/yaml/v3"

	"github.com/kafka-bench/kafka_bench_exporter/yamlnode"
)

// mappingValue is the scalar value of key in mapping n; "" when absent.
func mappingValue(n *yaml.Node, key string) string {
	if v := yamlnode.Lookup(n, key); v != nil && v.Kind == yaml.ScalarNode {
		return v.Value
	}
	return ""
}
