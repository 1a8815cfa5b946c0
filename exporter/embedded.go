package exporter

import (
	"fmt"
	"log/slog"

	"github.com/twmb/franz-go/pkg/kfake"
)

// EmbeddedBrokers is the size of the quick-start cluster: three brokers, so
// that a probe spreads partitions over several leaders as on a real cluster.
const EmbeddedBrokers = 3

// Embedded is the in-process Kafka (franz-go's kfake) used when no brokers
// are configured, so that metrics flow the moment the exporter starts. It is
// an imitation — no disks, no replication, no real failures — and is meant
// only for a first look and for fast unit tests.
type Embedded struct {
	cluster *kfake.Cluster
}

// StartEmbedded starts the cluster on loopback ports and logs one WARN line
// saying how to point the exporter at a real cluster.
func StartEmbedded(logger *slog.Logger) (*Embedded, error) {
	c, err := kfake.NewCluster(kfake.NumBrokers(EmbeddedBrokers))
	if err != nil {
		return nil, fmt.Errorf("starting embedded Kafka: %w", err)
	}
	logger.Warn("no Kafka brokers configured: probing an EMBEDDED in-process test cluster, not a real Kafka; "+
		"set --kafka.brokers=host:9092 or kafka.brokers in --config.file to measure your cluster",
		"embedded_brokers", c.ListenAddrs())
	return &Embedded{cluster: c}, nil
}

// Brokers are the embedded cluster's bootstrap addresses.
func (e *Embedded) Brokers() []string { return e.cluster.ListenAddrs() }

// Close stops the cluster.
func (e *Embedded) Close() { e.cluster.Close() }
