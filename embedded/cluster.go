// Package embedded is the in-process Kafka of the quick start: the exporter
// probes it when no brokers are configured. A server, kept apart from
// kclient, which is the client side of every connection.
package embedded

import (
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
)

// NumBrokers is the size of the quick-start cluster: three brokers, so that
// a probe spreads partitions over several leaders as on a real cluster.
const NumBrokers = 3

// The embedded cluster keeps records in memory, so without retention a quick
// start left running would grow by rate × record size forever: records are
// kept 5 minutes, and at most 16 MiB per partition. Retention drops whole
// segments, so segments are small (4 MiB instead of kfake's 100 MiB).
const (
	retention      = 5 * time.Minute
	retentionBytes = 16 << 20
	segmentBytes   = 4 << 20
)

// Cluster is the in-process Kafka (franz-go's kfake) used when no brokers
// are configured, so that metrics flow the moment the exporter starts. It is
// an imitation — no disks, no replication, no real failures — and is meant
// only for a first look and for fast unit tests.
type Cluster struct {
	cluster *kfake.Cluster
	stop    chan struct{}
	done    chan struct{}
	close   sync.Once
}

// Start starts the cluster on loopback ports and logs one WARN line saying
// how to point the exporter at a real cluster.
func Start(logger *slog.Logger) (*Cluster, error) {
	return start(logger, retention)
}

func start(logger *slog.Logger, retention time.Duration) (*Cluster, error) {
	c, err := kfake.NewCluster(
		kfake.NumBrokers(NumBrokers),
		kfake.BrokerConfigs(map[string]string{
			"log.retention.ms":    strconv.FormatInt(retention.Milliseconds(), 10),
			"log.retention.bytes": strconv.Itoa(retentionBytes),
			"log.segment.bytes":   strconv.Itoa(segmentBytes),
		}),
	)
	if err != nil {
		return nil, fmt.Errorf("starting embedded Kafka: %w", err)
	}
	logger.Warn("no Kafka brokers configured: probing an EMBEDDED in-process test cluster, not a real Kafka; "+
		"set --kafka.brokers=host:9092 or kafka.brokers in --config.file to measure your cluster",
		"embedded_brokers", c.ListenAddrs())
	e := &Cluster{cluster: c, stop: make(chan struct{}), done: make(chan struct{})}
	// Often, so that a high rate cannot pile up much above the byte limit
	// (and the Go heap, which grows to twice what is live, with it).
	go e.applyRetention(min(retention/10, time.Second))
	return e, nil
}

// applyRetention: kfake enforces retention only when asked.
func (e *Cluster) applyRetention(every time.Duration) {
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
func (e *Cluster) Brokers() []string { return e.cluster.ListenAddrs() }

// Close stops the cluster; calling it again does nothing.
func (e *Cluster) Close() {
	e.close.Do(func() {
		close(e.stop)
		<-e.done
		e.cluster.Close()
	})
}
