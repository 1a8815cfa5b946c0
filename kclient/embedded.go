package kclient

import (
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
)

// EmbeddedBrokers is the size of the quick-start cluster: three brokers, so
// that a probe spreads partitions over several leaders as on a real cluster.
const EmbeddedBrokers = 3

// The embedded cluster keeps records in memory, so without retention a quick
// start left running would grow by rate × record size forever: records are
// kept 5 minutes, and at most 16 MiB per partition. Retention drops whole
// segments, so segments are small (4 MiB instead of kfake's 100 MiB).
const (
	embeddedRetention      = 5 * time.Minute
	embeddedRetentionBytes = 16 << 20
	embeddedSegmentBytes   = 4 << 20
)

// Embedded is the in-process Kafka (franz-go's kfake) used when no brokers
// are configured, so that metrics flow the moment the exporter starts. It is
// an imitation — no disks, no replication, no real failures — and is meant
// only for a first look and for fast unit tests.
type Embedded struct {
	cluster *kfake.Cluster
	stop    chan struct{}
	done    chan struct{}
	close   sync.Once
}

// StartEmbedded starts the cluster on loopback ports and logs one WARN line
// saying how to point the exporter at a real cluster.
func StartEmbedded(logger *slog.Logger) (*Embedded, error) {
	return startEmbedded(logger, embeddedRetention)
}

func startEmbedded(logger *slog.Logger, retention time.Duration) (*Embedded, error) {
	c, err := kfake.NewCluster(
		kfake.NumBrokers(EmbeddedBrokers),
		kfake.BrokerConfigs(map[string]string{
			"log.retention.ms":    strconv.FormatInt(retention.Milliseconds(), 10),
			"log.retention.bytes": strconv.Itoa(embeddedRetentionBytes),
			"log.segment.bytes":   strconv.Itoa(embeddedSegmentBytes),
		}),
	)
	if err != nil {
		return nil, fmt.Errorf("starting embedded Kafka: %w", err)
	}
	logger.Warn("no Kafka brokers configured: probing an EMBEDDED in-process test cluster, not a real Kafka; "+
		"set --kafka.brokers=host:9092 or kafka.brokers in --config.file to measure your cluster",
		"embedded_brokers", c.ListenAddrs())
	e := &Embedded{cluster: c, stop: make(chan struct{}), done: make(chan struct{})}
	// Often, so that a high rate cannot pile up much above the byte limit
	// (and the Go heap, which grows to twice what is live, with it).
	go e.applyRetention(min(retention/10, time.Second))
	return e, nil
}

// applyRetention: kfake enforces retention only when asked.
func (e *Embedded) applyRetention(every time.Duration) {
	defer close(e.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-e.stop:
			return
		case <-t.C:
			e.cluster.ApplyRetention()
		}
	}
}

// Brokers are the embedded cluster's bootstrap addresses.
func (e *Embedded) Brokers() []string { return e.cluster.ListenAddrs() }

// Close stops the cluster; calling it again does nothing.
func (e *Embedded) Close() {
	e.close.Do(func() {
		close(e.stop)
		<-e.done
		e.cluster.Close()
	})
}
