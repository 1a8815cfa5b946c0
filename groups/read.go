package groups

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Group types, as ListGroups (v5+, KIP-1043) names them.
const (
	TypeClassic  = "classic"
	TypeConsumer = "consumer"
	TypeShare    = "share"
	TypeStreams  = "streams"
)

// Types are the group types this exporter reads.
var Types = []string{TypeClassic, TypeConsumer, TypeShare, TypeStreams}

// tp is a topic partition.
type tp struct {
	Topic     string
	Partition int32
}

// group is what one poll read of one group.
type group struct {
	Name, Type, ProtocolType, Protocol, State string
	// Described: the coordinator described it (Members, Assigned and
	// Subscribed are known).
	Described  bool
	Members    int
	Assigned   map[tp]bool
	Subscribed []string
	// Offsets are the committed offsets (a share group: its start
	// offsets); OffsetsRead: they were read.
	Offsets     map[tp]int64
	OffsetsRead bool
	// BrokerLag is a share group's lag as the broker computes it (-1:
	// unknown).
	BrokerLag map[tp]int64
	// NotRead is why the group was not read ("" when it was).
	NotRead string
}

// reading is what one poll read of the cluster.
type reading struct {
	groups  []*group
	skipped map[string]string // group type -> reason
	// problems are what made the poll incomplete (logged, success 0).
	problems []string
}

// apiKeys are the APIs each type is described with.
var apiKeys = map[string][]kmsg.Key{
	TypeClassic:  {kmsg.DescribeGroups, kmsg.OffsetFetch},
	TypeConsumer: {kmsg.ConsumerGroupDescribe, kmsg.OffsetFetch},
	TypeShare:    {kmsg.ShareGroupDescribe, kmsg.DescribeShareGroupOffsets},
	TypeStreams:  {kmsg.StreamsGroupDescribe, kmsg.OffsetFetch},
}

// skippedTypes are the types some broker cannot describe, with the reason:
// a type is read only when every broker advertises its APIs (a group's
// coordinator may be any of them).
func skippedTypes(vs kadm.BrokersApiVersions) map[string]string {
	out := map[string]string{}
	for _, typ := range Types {
		for _, id := range slices.Sorted(mapsKeys(vs)) {
			v := vs[id]
			if v.Err != nil {
				continue
			}
			for _, k := range apiKeys[typ] {
				if _, ok := v.KeyMaxVersion(int16(k)); !ok {
					out[typ] = fmt.Sprintf("broker %d does not advertise %s", id, k.Name())
					break
				}
			}
			if out[typ] != "" {
				break
			}
		}
	}
	return out
}

func mapsKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// typeOf is a listed group's type: a broker before ListGroups v5 names
// none, and every group it has is classic.
func typeOf(l kadm.ListedGroup) string {
	if l.GroupType == "" {
		return TypeClassic
	}
	return l.GroupType
}

// selector says which groups a poll reads.
type selector interface {
	group(name string) bool
}

// read lists, describes and fetches the offsets of every selected group:
// a request per coordinator for each step, never one per group.
func read(ctx context.Context, cl *kgo.Client, adm *kadm.Client, sel selector, named []string) *reading {
	r := &reading{skipped: map[string]string{}}
	if vs, err := adm.ApiVersions(ctx); err != nil {
		r.problems = append(r.problems, "ApiVersions: "+err.Error())
	} else {
		r.skipped = skippedTypes(vs)
	}
	listed, err := adm.ListGroups(ctx)
	if err != nil {
		r.problems = append(r.problems, "ListGroups: "+err.Error())
		if listed == nil {
			return r
		}
	}
	byType := map[string][]string{}
	index := map[string]*group{}
	for _, l := range listed.Sorted() {
		if !sel.group(l.Group) {
			continue
		}
		g := &group{Name: l.Group, Type: typeOf(l), ProtocolType: l.ProtocolType, State: l.State}
		index[g.Name] = g
		r.groups = append(r.groups, g)
		switch {
		case g.Type == TypeClassic && g.ProtocolType == "connect":
			g.NotRead = "a Connect workers' group: it holds no offsets (a sink connector's consumer group is listed apart)"
		case !slices.Contains(Types, g.Type):
			g.NotRead = "a group type this exporter does not read"
		case r.skipped[g.Type] != "":
			g.NotRead = r.skipped[g.Type]
		default:
			byType[g.Type] = append(byType[g.Type], g.Name)
		}
	}
	for _, name := range named {
		if _, ok := index[name]; !ok && err == nil && sel.group(name) {
			r.groups = append(r.groups, &group{Name: name, NotRead: "not visible: no broker lists it (missing, or not authorised to describe it)"})
		}
	}
	describeClassic(ctx, adm, index, byType[TypeClassic], r)
	describeConsumer(ctx, adm, index, byType[TypeConsumer], r)
	describeShare(ctx, adm, index, byType[TypeShare], r)
	describeStreams(ctx, cl, adm, index, byType[TypeStreams], r)
	fetchOffsets(ctx, cl, index, slices.Concat(byType[TypeClassic], byType[TypeConsumer], byType[TypeStreams]), r)
	fetchShareOffsets(ctx, adm, index, byType[TypeShare], r)
	sort.Slice(r.groups, func(i, j int) bool { return r.groups[i].Name < r.groups[j].Name })
	return r
}

// retry sends again, once, for the groups whose coordinator answered with
// a retriable error (it moved, or is loading): franz-go retries those of a
// whole shard, not one group's.
func retried(err error) bool {
	return errors.Is(err, kerr.CoordinatorLoadInProgress) || errors.Is(err, kerr.NotCoordinator) || errors.Is(err, kerr.CoordinatorNotAvailable)
}

func describeClassic(ctx context.Context, adm *kadm.Client, index map[string]*group, names []string, r *reading) {
	if len(names) == 0 {
		return
	}
	ds, err := adm.DescribeGroups(ctx, names...)
	if again := failedRetriable(names, func(n string) error { return ds[n].Err }); len(again) > 0 {
		more, _ := adm.DescribeGroups(ctx, again...)
		maps.Copy(ds, more)
	}
	noteShardErr(r, "DescribeGroups", err)
	for _, name := range names {
		g := index[name]
		d, ok := ds[name]
		if !ok || d.Err != nil {
			g.describeFailed(r, "DescribeGroups", d.Err)
			continue
		}
		g.Described, g.State, g.Protocol, g.ProtocolType = true, d.State, d.Protocol, d.ProtocolType
		g.Members = len(d.Members)
		g.Assigned = map[tp]bool{}
		subscribed := map[string]bool{}
		for _, m := range d.Members {
			if a, ok := m.Assigned.AsConsumer(); ok {
				for _, t := range a.Topics {
					for _, p := range t.Partitions {
						g.Assigned[tp{t.Topic, p}] = true
					}
				}
			}
			if md, ok := m.Join.AsConsumer(); ok {
				for _, t := range md.Topics {
					subscribed[t] = true
				}
			}
		}
		g.Subscribed = slices.Sorted(mapsKeys(subscribed))
	}
}

func describeConsumer(ctx context.Context, adm *kadm.Client, index map[string]*group, names []string, r *reading) {
	if len(names) == 0 {
		return
	}
	ds, err := adm.DescribeConsumerGroups(ctx, names...)
	if again := failedRetriable(names, func(n string) error { return ds[n].Err }); len(again) > 0 {
		more, _ := adm.DescribeConsumerGroups(ctx, again...)
		maps.Copy(ds, more)
	}
	noteShardErr(r, "ConsumerGroupDescribe", err)
	for _, name := range names {
		g := index[name]
		d, ok := ds[name]
		if !ok || d.Err != nil {
			g.describeFailed(r, "ConsumerGroupDescribe", d.Err)
			continue
		}
		g.Described, g.State, g.Protocol, g.ProtocolType = true, d.State, d.AssignorName, "consumer"
		g.Members = len(d.Members)
		g.Assigned = map[tp]bool{}
		for _, m := range d.Members {
			m.Assignment.Each(func(t string, p int32) { g.Assigned[tp{t, p}] = true })
		}
		g.Subscribed = d.SubscribedTopics()
	}
}

func describeShare(ctx context.Context, adm *kadm.Client, index map[string]*group, names []string, r *reading) {
	if len(names) == 0 {
		return
	}
	ds, err := adm.DescribeShareGroups(ctx, names...)
	if again := failedRetriable(names, func(n string) error { return ds[n].Err }); len(again) > 0 {
		more, _ := adm.DescribeShareGroups(ctx, again...)
		maps.Copy(ds, more)
	}
	noteShardErr(r, "ShareGroupDescribe", err)
	for _, name := range names {
		g := index[name]
		d, ok := ds[name]
		if !ok || d.Err != nil {
			g.describeFailed(r, "ShareGroupDescribe", d.Err)
			continue
		}
		g.Described, g.State, g.Protocol, g.ProtocolType = true, d.GroupState, d.Assignor, "share"
		g.Members = len(d.Members)
		g.Assigned = map[tp]bool{}
		for _, m := range d.Members {
			m.Assignment.Each(func(t string, p int32) { g.Assigned[tp{t, p}] = true })
		}
		g.Subscribed = d.SubscribedTopics()
	}
}

// failedRetriable are the names whose answer was a retriable coordinator
// error.
func failedRetriable(names []string, errOf func(string) error) []string {
	var out []string
	for _, n := range names {
		if retried(errOf(n)) {
			out = append(out, n)
		}
	}
	return out
}

// noteShardErr records a request that failed at some brokers (the groups
// they coordinate are then not described).
func noteShardErr(r *reading, what string, err error) {
	if err != nil {
		r.problems = append(r.problems, what+": "+err.Error())
	}
}

func (g *group) describeFailed(r *reading, what string, err error) {
	if err == nil {
		err = errors.New("no answer from its coordinator")
	}
	g.NotRead = fmt.Sprintf("%s failed: %v", what, err)
	r.problems = append(r.problems, fmt.Sprintf("group %q: %s", g.Name, g.NotRead))
}

// fetchOffsets reads the committed offsets of every group in one
// OffsetFetch per coordinator (KIP-709), the groups whose coordinator
// moved once more.
func fetchOffsets(ctx context.Context, cl *kgo.Client, index map[string]*group, names []string, r *reading) {
	if len(names) == 0 {
		return
	}
	errs := offsetFetch(ctx, cl, index, names)
	if again := failedRetriable(names, func(n string) error { return errs[n] }); len(again) > 0 {
		maps.Copy(errs, offsetFetch(ctx, cl, index, again))
	}
	for _, name := range names {
		err, ok := errs[name]
		if ok && err == nil {
			index[name].OffsetsRead = true
			continue
		}
		if err == nil {
			err = errors.New("no answer from its coordinator")
		}
		r.problems = append(r.problems, fmt.Sprintf("group %q: OffsetFetch failed: %v", name, err))
	}
}

// offsetFetch sends one OffsetFetch per coordinator and sets the offsets
// of each group answered without an error: the error of each group
// answered, nil for one read.
func offsetFetch(ctx context.Context, cl *kgo.Client, index map[string]*group, names []string) map[string]error {
	errs := make(map[string]error, len(names))
	req := kmsg.NewPtrOffsetFetchRequest()
	req.Groups = make([]kmsg.OffsetFetchRequestGroup, len(names))
	for i, name := range names {
		req.Groups[i] = kmsg.NewOffsetFetchRequestGroup()
		req.Groups[i].Group = name
	}
	for _, shard := range cl.RequestSharded(ctx, req) {
		sent := shard.Req.(*kmsg.OffsetFetchRequest)
		err := shard.Err
		if err == nil {
			// The request's own error (the groups' are apart from v8).
			if e := kerr.ErrorForCode(shard.Resp.(*kmsg.OffsetFetchResponse).ErrorCode); isAuthErr(e) {
				err = e
			}
		}
		if err != nil {
			for _, g := range sent.Groups {
				errs[g.Group] = err
			}
			continue
		}
		for _, rg := range shard.Resp.(*kmsg.OffsetFetchResponse).Groups {
			g := index[rg.Group]
			if g == nil {
				continue
			}
			if err := kerr.ErrorForCode(rg.ErrorCode); err != nil {
				errs[rg.Group] = err
				continue
			}
			n := 0
			for _, t := range rg.Topics {
				n += len(t.Partitions)
			}
			g.Offsets = make(map[tp]int64, n)
			for _, t := range rg.Topics {
				for _, p := range t.Partitions {
					if p.ErrorCode == 0 && p.Offset >= 0 {
						g.Offsets[tp{t.Topic, p.Partition}] = p.Offset
					}
				}
			}
			errs[rg.Group] = nil
		}
	}
	return errs
}

// isAuthErr: the error is an authorization failure.
func isAuthErr(err error) bool {
	return errors.Is(err, kerr.ClusterAuthorizationFailed) || errors.Is(err, kerr.TopicAuthorizationFailed) ||
		errors.Is(err, kerr.GroupAuthorizationFailed)
}

// fetchShareOffsets reads share groups' start offsets and the broker's lag
// in one DescribeShareGroupOffsets per coordinator.
func fetchShareOffsets(ctx context.Context, adm *kadm.Client, index map[string]*group, names []string, r *reading) {
	if len(names) == 0 {
		return
	}
	ds, err := adm.DescribeShareGroupOffsets(ctx, names...)
	noteShardErr(r, "DescribeShareGroupOffsets", err)
	for _, name := range names {
		g := index[name]
		d, ok := ds[name]
		if !ok || d.Err != nil {
			r.problems = append(r.problems, fmt.Sprintf("group %q: DescribeShareGroupOffsets failed: %v", name, d.Err))
			continue
		}
		g.OffsetsRead = true
		g.Offsets, g.BrokerLag = map[tp]int64{}, map[tp]int64{}
		for _, ps := range d.Offsets {
			for _, o := range ps {
				if o.Err != nil || o.StartOffset < 0 {
					continue
				}
				g.Offsets[tp{o.Topic, o.Partition}] = o.StartOffset
				g.BrokerLag[tp{o.Topic, o.Partition}] = o.Lag
			}
		}
	}
}
