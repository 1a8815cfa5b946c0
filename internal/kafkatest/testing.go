package kafkatest

import (
	"context"
	"os"
	"testing"
	"time"
)

// IntegrationEnv is the environment variable that enables tests against real brokers.
const IntegrationEnv = "KAFKA_BENCH_INTEGRATION"

// startTimeout bounds Start; a healthy 3-node start takes seconds, the rest
// is slack for a loaded 2-core machine and a first-run jar download.
const startTimeout = 3 * time.Minute

// Integration skips t unless KAFKA_BENCH_INTEGRATION=1. When it is set nothing
// skips: a harness failure (no java, no jars, a broker that does not start)
// fails the test instead of hiding it.
func Integration(t testing.TB) {
	t.Helper()
	if os.Getenv(IntegrationEnv) != "1" {
		t.Skipf("real-Kafka integration test: set %s=1 to run (needs java 17+ and mvn)", IntegrationEnv)
	}
}

// Start starts a cluster for t, failing t on any error. A cleanup kills every
// JVM and removes the directories; if t failed, it first logs the tail of
// every node's log.
func Start(t testing.TB, opts Options) *Cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	c, err := StartCluster(ctx, opts, t.Logf)
	if err != nil {
		t.Fatalf("kafkatest.Start: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			for i := range c.Nodes() {
				t.Logf("--- kafka node %d log (%s), tail:\n%s", c.NodeID(i), c.Logs(i), tail(c.Logs(i)))
			}
		}
		c.Close()
	})
	return c
}
