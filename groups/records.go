package groups

import (
	"context"
	"slices"
	"sort"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Bounds of the reads of records at committed offsets (recordTimes).
const (
	// maxReadsPerLeader caps the partitions asked of one leader per poll;
	// the others wait for the next poll.
	maxReadsPerLeader = 100
	// readPartitionBytes and readResponseBytes bound what a read may
	// return: a partition's first batch comes whole (KIP-74), the rest up
	// to these.
	readPartitionBytes = 64 << 10
	readResponseBytes  = 8 << 20
)

// tpo is an offset of a partition.
type tpo struct {
	tp
	offset int64
}

// leaderOf is a partition's leader and its topic's id, from Metadata.
type leaderOf struct {
	leader  int32
	topicID [16]byte
}

// recordTimes reads the timestamp of the record at each wanted offset: one
// Fetch per leader, for the partitions whose backlog is older than their
// timeline (just after the exporter started), so a scrape right after a
// start has lag in seconds too. A partition whose record cannot be read
// (deleted by retention, the leader unreachable) has none.
// Several groups may want several offsets of one partition: it is read
// from the lowest, and every wanted offset among the records returned is
// answered; the others wait for the next poll.
func recordTimes(ctx context.Context, cl *kgo.Client, want map[tp][]int64, leaders map[tp]leaderOf) map[tpo]time.Time {
	out := map[tpo]time.Time{}
	byLeader := map[int32][]tp{}
	for p := range want {
		if l, ok := leaders[p]; ok && l.leader >= 0 {
			byLeader[l.leader] = append(byLeader[l.leader], p)
		}
	}
	for leader, ps := range byLeader {
		sort.Slice(ps, func(i, j int) bool {
			return ps[i].Topic < ps[j].Topic || ps[i].Topic == ps[j].Topic && ps[i].Partition < ps[j].Partition
		})
		if len(ps) > maxReadsPerLeader {
			ps = ps[:maxReadsPerLeader]
		}
		req := kmsg.NewPtrFetchRequest()
		req.ReplicaID = -1
		req.MaxWaitMillis = 0
		req.MinBytes = 1
		req.MaxBytes = readResponseBytes
		req.SessionEpoch = -1 // no fetch session
		index := map[string]int{}
		names := map[[16]byte]string{}
		for _, p := range ps {
			i, ok := index[p.Topic]
			if !ok {
				t := kmsg.NewFetchRequestTopic()
				t.Topic, t.TopicID = p.Topic, leaders[p].topicID
				names[t.TopicID] = p.Topic
				req.Topics = append(req.Topics, t)
				i = len(req.Topics) - 1
				index[p.Topic] = i
			}
			fp := kmsg.NewFetchRequestTopicPartition()
			fp.Partition = p.Partition
			fp.FetchOffset = slices.Min(want[p])
			fp.PartitionMaxBytes = readPartitionBytes
			fp.CurrentLeaderEpoch = -1
			fp.LogStartOffset = -1
			req.Topics[i].Partitions = append(req.Topics[i].Partitions, fp)
		}
		resp, err := req.RequestWith(ctx, cl.Broker(int(leader)))
		if err != nil {
			continue
		}
		for _, t := range resp.Topics {
			topic := t.Topic
			if topic == "" {
				topic = names[t.TopicID]
			}
			for i := range t.Partitions {
				rp := &t.Partitions[i]
				p := tp{topic, rp.Partition}
				offsets, ok := want[p]
				if !ok || rp.ErrorCode != 0 {
					continue
				}
				fp, _ := kgo.ProcessFetchPartition(kgo.ProcessFetchPartitionOpts{Offset: slices.Min(offsets), Topic: topic, Partition: rp.Partition}, rp, kgo.DefaultDecompressor(), nil)
				for _, o := range offsets {
					// The record at o, or the next one kept (o may be a
					// control record's, or compacted away).
					i := slices.IndexFunc(fp.Records, func(r *kgo.Record) bool { return r.Offset >= o })
					if i >= 0 {
						out[tpo{p, o}] = fp.Records[i].Timestamp
					}
				}
			}
		}
	}
	return out
}
