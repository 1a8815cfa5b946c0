package kclient

import (
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/config"
)

// RoleReplica is the role of a probe's reader on a replica cluster.
const RoleReplica = "replica"

// replicaMetadataMaxAge bounds how long a replica reader takes to see the
// copy of the probe topic once the replicator creates it.
const replicaMetadataMaxAge = 5 * time.Second

// ReplicaOpts map probe p's consumer properties onto the reader of topic on
// the replica cluster: a direct consumer (no group, nothing committed) that
// starts at the first record stamped at or after from, so it reads every
// record of a run whether the copy already exists or the replicator creates
// it later (and copies it from the start), and finds its place again by
// time when the copy is recreated.
func ReplicaOpts(p config.Probe, topic string, from time.Time) []kgo.Opt {
	c := p.Consumer
	return []kgo.Opt{
		kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AfterMilli(from.UnixMilli())),
		kgo.FetchMinBytes(c.FetchMinBytes),
		kgo.FetchMaxBytes(c.FetchMaxBytes),
		kgo.FetchMaxPartitionBytes(c.MaxPartitionFetchBytes),
		kgo.FetchMaxWait(time.Duration(c.FetchMaxWaitMS) * time.Millisecond),
		kgo.MetadataMaxAge(replicaMetadataMaxAge),
	}
}
