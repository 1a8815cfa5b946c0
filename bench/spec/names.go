package spec

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kafka-bench/kafka_bench_exporter/config"
)

// scenarioHash names the scenario's topic: the same scenario gets the same
// topic in every run, a changed one (other defaults) a new topic.
func scenarioHash(name string, p config.Probe) string {
	p.Name, p.Topic, p.Consumer.GroupID = "", "", ""
	out, _ := yaml.Marshal(p) // a plain struct: cannot fail
	sum := sha256.Sum256(append([]byte(name+"\n"), out...))
	return hex.EncodeToString(sum[:6])
}

// uniqueLabel makes the scenario name a valid probe label ([a-z0-9_-], at
// most 64 characters), readable when it can be and unique always.
func uniqueLabel(name, hash string, used map[string]bool) string {
	var sb strings.Builder
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_', r == '-':
			sb.WriteRune(r)
		default:
			sb.WriteByte('_')
		}
	}
	label := sb.String()
	if label == "" {
		label = "bench"
	}
	if len(label) > maxLabelLength || used[label] {
		label = label[:min(len(label), maxLabelLength-len(hash)-1)] + "-" + hash
	}
	used[label] = true
	return label
}
