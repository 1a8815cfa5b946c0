package groups

import (
	"context"
	"fmt"
	"slices"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// describeStreams describes Streams groups (KIP-1071). kadm has no wrapper
// for StreamsGroupDescribe and franz-go does not route it to coordinators,
// so it finds them (one batched FindCoordinator) and sends one request to
// each with its groups.
func describeStreams(ctx context.Context, cl *kgo.Client, adm *kadm.Client, index map[string]*group, names []string, r *reading) {
	if len(names) == 0 {
		return
	}
	pending := names
	for attempt := 0; attempt < 2 && len(pending) > 0; attempt++ {
		byCoordinator := map[int32][]string{}
		for name, c := range adm.FindGroupCoordinators(ctx, pending...) {
			if c.Err != nil {
				index[name].describeFailed(r, "FindCoordinator", c.Err)
				continue
			}
			byCoordinator[c.NodeID] = append(byCoordinator[c.NodeID], name)
		}
		pending = nil
		for _, id := range slices.Sorted(mapsKeys(byCoordinator)) {
			req := kmsg.NewPtrStreamsGroupDescribeRequest()
			req.Groups = byCoordinator[id]
			resp, err := req.RequestWith(ctx, cl.Broker(int(id)))
			if err != nil {
				for _, name := range req.Groups {
					index[name].describeFailed(r, "StreamsGroupDescribe", err)
				}
				continue
			}
			for _, d := range resp.Groups {
				g, ok := index[d.Group]
				if !ok {
					continue
				}
				if err := kerr.ErrorForCode(d.ErrorCode); err != nil {
					if retried(err) && attempt == 0 {
						pending = append(pending, d.Group)
						continue
					}
					g.describeFailed(r, "StreamsGroupDescribe", err)
					continue
				}
				g.NotRead = ""
				streamsGroup(g, &d)
			}
		}
	}
}

// streamsGroup fills g from its description: a member owns the partitions
// of its active tasks in the source topics of their subtopologies.
func streamsGroup(g *group, d *kmsg.StreamsGroupDescribeResponseGroup) {
	g.Described, g.State, g.ProtocolType = true, d.State, "streams"
	if d.AssignorName != nil {
		g.Protocol = *d.AssignorName
	}
	g.Members = len(d.Members)
	sources := map[string][]string{}
	subscribed := map[string]bool{}
	if d.Topology != nil {
		for _, s := range d.Topology.Subtopologies {
			topics := slices.Clone(s.SourceTopics)
			for _, t := range s.RepartitionSourceTopics {
				topics = append(topics, t.Topic)
			}
			sources[s.SubtopologyID] = topics
			for _, t := range topics {
				subscribed[t] = true
			}
		}
	}
	g.Assigned = map[tp]bool{}
	for _, m := range d.Members {
		for _, task := range m.Assignment.ActiveTasks {
			for _, t := range sources[task.SubtopologyID] {
				for _, p := range task.Partitions {
					g.Assigned[tp{t, p}] = true
				}
			}
		}
	}
	g.Subscribed = slices.Sorted(mapsKeys(subscribed))
}

// String names a group for logs.
func (g *group) String() string { return fmt.Sprintf("%s group %q", g.Type, g.Name) }
