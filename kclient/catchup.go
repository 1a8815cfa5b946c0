package kclient

import (
	"fmt"
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
	offsets := make(map[int32]kgo.Offset, len(starts))
	for partition, at := range starts {
		offsets[partition] = kgo.NewOffset().At(at)
	}
	return append(flatten(catchUpProps(p, w, "")), kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{p.Topic: offsets}))
}

// catchUpProps are a catch-up reader's properties; key names the window's
// block (catch_up[i]) in the keys of its overrides, "" where no check reads
// them.
func catchUpProps(p config.Probe, w config.CatchUp, key string) []property {
	c := w.Consumer.Applied(p.Consumer)
	name := func(k string, override bool) string {
		if override && key != "" {
			return key + ".consumer." + k
		}
		return "consumer." + k
	}
	o := w.Consumer
	props := []property{
		{opts: []kgo.Opt{kgo.ConsumeResetOffset(kgo.NoResetOffset()),
			// The transaction markers show where a partition's window ends
			// when its last offsets hold one.
			kgo.KeepControlRecords()}},
		{key: name("fetch.min.bytes", o.FetchMinBytes != nil), value: c.FetchMinBytes, opts: []kgo.Opt{kgo.FetchMinBytes(c.FetchMinBytes)}},
		{key: name("fetch.max.bytes", o.FetchMaxBytes != nil), value: c.FetchMaxBytes, opts: []kgo.Opt{kgo.FetchMaxBytes(c.FetchMaxBytes)}},
		{key: name("max.partition.fetch.bytes", o.MaxPartitionFetchBytes != nil), value: c.MaxPartitionFetchBytes, opts: []kgo.Opt{kgo.FetchMaxPartitionBytes(c.MaxPartitionFetchBytes)}},
		{key: name("fetch.max.wait.ms", o.FetchMaxWaitMS != nil), value: c.FetchMaxWaitMS, opts: []kgo.Opt{kgo.FetchMaxWait(time.Duration(c.FetchMaxWaitMS) * time.Millisecond)}},
	}
	if c.ReadCommitted() {
		props = append(props, property{key: "consumer.isolation.level", value: c.IsolationLevel, opts: []kgo.Opt{kgo.FetchIsolationLevel(kgo.ReadCommitted())}})
	}
	if !c.CheckCRCs {
		props = append(props, property{key: "consumer.check.crcs", value: false, opts: []kgo.Opt{kgo.DisableFetchCRCValidation()}})
	}
	if c.ClientRack != "" {
		props = append(props, property{key: "consumer.client.rack", value: c.ClientRack, opts: []kgo.Opt{kgo.Rack(c.ClientRack)}})
	}
	return props
}

// checkCatchUps builds each catch-up reader of p once, as Check does.
func checkCatchUps(scope string, k config.Cluster, o Options, p config.Probe) error {
	for i, w := range p.CatchUp {
		if err := check(scope, k, o, catchUpProps(p, w, fmt.Sprintf("catch_up[%d]", i))); err != nil {
			return err
		}
	}
	return nil
}
