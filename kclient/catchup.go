package kclient

import (
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/config"
)

// RoleCatchUp is the role of a probe's catch-up reader; its member label
// is the window (config.CatchUp.From).
const RoleCatchUp = "catchup"

// CatchUpOpts map probe p's consumer properties, with catch-up window w's
// overrides, onto a reader of the probe topic without a group: it reads
// each partition of starts from the offset given, and an offset that
// retention deleted meanwhile is an error for that partition rather than
// a jump to another offset, so that no record is skipped unseen.
func CatchUpOpts(p config.Probe, w config.CatchUp, starts map[int32]int64) []kgo.Opt {
	c := w.Consumer.Applied(p.Consumer)
	offsets := make(map[int32]kgo.Offset, len(starts))
	for partition, at := range starts {
		offsets[partition] = kgo.NewOffset().At(at)
	}
	opts := []kgo.Opt{
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{p.Topic: offsets}),
		kgo.ConsumeResetOffset(kgo.NoResetOffset()),
		// The transaction markers show where a partition's window ends
		// when its last offsets hold one.
		kgo.KeepControlRecords(),
		kgo.FetchMinBytes(c.FetchMinBytes),
		kgo.FetchMaxBytes(c.FetchMaxBytes),
		kgo.FetchMaxPartitionBytes(c.MaxPartitionFetchBytes),
		kgo.FetchMaxWait(time.Duration(c.FetchMaxWaitMS) * time.Millisecond),
	}
	if c.ReadCommitted() {
		opts = append(opts, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	}
	if !c.CheckCRCs {
		opts = append(opts, kgo.DisableFetchCRCValidation())
	}
	if c.ClientRack != "" {
		opts = append(opts, kgo.Rack(c.ClientRack))
	}
	return opts
}
