package groups

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-bench/kafka_bench_exporter/config"
)

// state is what the collector keeps from poll to poll for one cluster.
type state struct {
	timelines map[tp]*timeline
	// recordTimes are the timestamps read of the records at committed
	// offsets older than their timeline, by partition and offset.
	recordTimes map[tpo]recordTime
	groups      map[string]*memory
	kept        map[string]bool // the groups max_series kept at the last poll
	denied      map[string]bool // topics logged as not authorised
	skipped     map[string]string
	dropping    bool
	failure     string
	lastSuccess time.Time
	labels      labelCache // of the series of the last poll
	polls       uint64     // polls begun
}

// recordTime is when a record was written, and the last poll at which a
// group was at its offset.
type recordTime struct {
	at   time.Time
	poll uint64
}

// memory is what the collector remembers of a group.
type memory struct {
	offsets map[tp]int64
	moved   time.Time
	resets  int
	history []lagPoint
}

func newState() *state {
	return &state{timelines: map[tp]*timeline{}, recordTimes: map[tpo]recordTime{}, groups: map[string]*memory{},
		kept: map[string]bool{}, denied: map[string]bool{}, skipped: map[string]string{}}
}

type poller struct {
	cl     *kgo.Client
	adm    *kadm.Client
	target Target
	st     *state
	logger *slog.Logger
	now    func() time.Time
	groups config.NameFilter
	topics config.NameFilter
	own    map[string]bool
	buf    seriesBuf
}

func (p *poller) group(name string) bool { return !p.own[name] && p.groups.Match(name) }

// partLag is one partition's lag of a group; seconds < 0 is unknown.
type partLag struct {
	tp
	offset  int64 // the committed offset
	records int64
	seconds float64
}

// groupOut is one group's series and how far behind it is, for max_series.
type groupOut struct {
	name    string
	seconds float64
	series  []prometheus.Metric
}

// poll reads the cluster once and returns the series of the last poll.
func (p *poller) poll(ctx context.Context) []prometheus.Metric {
	start := time.Now()
	p.st.polls++
	r := read(ctx, p.cl, p.adm, p, p.groups.Literal)
	now := p.now()
	p.noteSkipped(r.skipped)

	// The topics of every group read, their partitions and leaders, and
	// their end offsets: one Metadata and one ListOffsets per leader.
	topicSet := map[string]bool{}
	for _, g := range r.groups {
		for t := range g.Offsets {
			if p.topics.Match(t.Topic) {
				topicSet[t.Topic] = true
			}
		}
		for _, t := range g.Subscribed {
			if p.topics.Match(t) {
				topicSet[t] = true
			}
		}
	}
	topics := slices.Sorted(maps.Keys(topicSet))
	partitions := map[string][]int32{}
	leaders := map[tp]leaderOf{}
	denied := map[string]bool{}
	ends := map[tp]int64{}
	if len(topics) > 0 {
		// kadm's Metadata fails whole on one denied topic: the request
		// itself, every topic's error apart.
		req := kmsg.NewPtrMetadataRequest()
		for _, t := range topics {
			rt := kmsg.NewMetadataRequestTopic()
			rt.Topic = new(t)
			req.Topics = append(req.Topics, rt)
		}
		var readable []string
		resp, err := req.RequestWith(ctx, p.cl)
		if err != nil {
			r.problems = append(r.problems, "Metadata: "+err.Error())
		} else {
			for _, d := range resp.Topics {
				if d.Topic == nil {
					continue
				}
				t := *d.Topic
				switch err := kerr.ErrorForCode(d.ErrorCode); {
				case errors.Is(err, kerr.TopicAuthorizationFailed):
					denied[t] = true
				case err == nil:
					readable = append(readable, t)
					for _, pd := range d.Partitions {
						partitions[t] = append(partitions[t], pd.Partition)
						leaders[tp{t, pd.Partition}] = leaderOf{leader: pd.Leader, topicID: d.TopicID}
					}
				}
			}
		}
		if len(readable) > 0 {
			r.problems = append(r.problems, p.listEnds(ctx, readable, partitions, ends)...)
		}
	}
	p.noteDenied(denied)
	for t, end := range ends {
		tl := p.st.timelines[t]
		if tl == nil {
			tl = &timeline{}
			p.st.timelines[t] = tl
		}
		tl.observe(end, now)
	}
	for t := range p.st.timelines {
		if _, ok := ends[t]; !ok {
			delete(p.st.timelines, t)
		}
	}

	// Lag per partition; the records at committed offsets older than
	// their timeline are read, one Fetch per leader.
	lags := map[string][]partLag{}
	want := map[tp][]int64{}
	for _, g := range r.groups {
		if g.NotRead != "" || !g.OffsetsRead {
			continue
		}
		for t, c := range g.Offsets {
			end, ok := ends[t]
			if !ok || !p.topics.Match(t.Topic) {
				continue
			}
			l := partLag{tp: t, records: max(0, end-c), seconds: -1}
			if g.BrokerLag != nil {
				if bl := g.BrokerLag[t]; bl >= 0 {
					l.records = bl
				} else {
					continue
				}
			}
			if l.records == 0 {
				l.seconds = 0
			} else if at, ok := p.st.timelines[t].written(c); ok {
				l.seconds = max(0, now.Sub(at).Seconds())
			} else if rt, ok := p.st.recordTimes[tpo{t, c}]; ok {
				l.seconds = max(0, now.Sub(rt.at).Seconds())
			} else if !slices.Contains(want[t], c) {
				want[t] = append(want[t], c)
			}
			l.offset = c
			if lags[g.Name] == nil {
				lags[g.Name] = make([]partLag, 0, len(g.Offsets))
			}
			lags[g.Name] = append(lags[g.Name], l)
		}
	}
	if len(want) > 0 {
		read := recordTimes(ctx, p.cl, want, leaders)
		for k, at := range read {
			p.st.recordTimes[k] = recordTime{at: at, poll: p.st.polls}
		}
		for _, ls := range lags {
			for i := range ls {
				if at, ok := read[tpo{ls[i].tp, ls[i].offset}]; ok && ls[i].seconds < 0 {
					ls[i].seconds = max(0, now.Sub(at).Seconds())
				}
			}
		}
	}
	p.pruneRecordTimes(r.groups)

	// Each group's series, then max_series.
	var outs []groupOut
	byType := map[string]int{}
	var notRead []prometheus.Metric
	seen := map[string]bool{}
	for _, g := range r.groups {
		if g.NotRead != "" {
			notRead = append(notRead, prometheus.MustNewConstMetric(descNotRead, prometheus.GaugeValue, 1, g.Name, g.Type, g.NotRead))
			continue
		}
		seen[g.Name] = true
		byType[g.Type]++
		outs = append(outs, p.groupSeries(g, lags[g.Name], partitions, denied, now))
	}
	for name := range p.st.groups {
		if !seen[name] {
			delete(p.st.groups, name)
		}
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		return nil // stopped or replaced: nothing to serve or log
	}
	kept, dropped := p.limit(outs)
	p.st.labels.sweep()

	success := 0.0
	if len(r.problems) == 0 {
		success = 1
		p.st.lastSuccess = now
	}
	p.logProblems(r.problems)
	series := kept
	series = append(series, notRead...)
	series = append(series,
		prometheus.MustNewConstMetric(descPollDuration, prometheus.GaugeValue, time.Since(start).Seconds()),
		prometheus.MustNewConstMetric(descPollSuccess, prometheus.GaugeValue, success),
		prometheus.MustNewConstMetric(descDropped, prometheus.GaugeValue, float64(dropped)),
		prometheus.MustNewConstMetric(descTopicsDenied, prometheus.GaugeValue, float64(len(denied))),
	)
	if !p.st.lastSuccess.IsZero() {
		series = append(series, prometheus.MustNewConstMetric(descPollLast, prometheus.GaugeValue, float64(p.st.lastSuccess.UnixNano())/1e9))
	}
	for _, typ := range Types {
		series = append(series, prometheus.MustNewConstMetric(descGroups, prometheus.GaugeValue, float64(byType[typ]), typ))
	}
	for _, typ := range slices.Sorted(maps.Keys(r.skipped)) {
		series = append(series, prometheus.MustNewConstMetric(descTypeSkipped, prometheus.GaugeValue, 1, typ, r.skipped[typ]))
	}
	return series
}

// listEnds reads the high watermarks of the partitions of topics into
// ends: one ListOffsets per leader, from the partitions Metadata just
// listed (no Metadata of its own, as kadm's would send). It returns what
// could not be read.
func (p *poller) listEnds(ctx context.Context, topics []string, partitions map[string][]int32, ends map[tp]int64) (problems []string) {
	req := kmsg.NewPtrListOffsetsRequest()
	req.TimeoutMillis = 15000
	req.Topics = make([]kmsg.ListOffsetsRequestTopic, 0, len(topics))
	for _, t := range topics {
		rt := kmsg.NewListOffsetsRequestTopic()
		rt.Topic = t
		rt.Partitions = make([]kmsg.ListOffsetsRequestTopicPartition, len(partitions[t]))
		for i, part := range partitions[t] {
			rt.Partitions[i] = kmsg.NewListOffsetsRequestTopicPartition()
			rt.Partitions[i].Partition = part
			rt.Partitions[i].Timestamp = -1 // the high watermark (read uncommitted)
		}
		req.Topics = append(req.Topics, rt)
	}
	for _, shard := range p.cl.RequestSharded(ctx, req) {
		if shard.Err != nil {
			problems = append(problems, fmt.Sprintf("ListOffsets to broker %d: %v", shard.Meta.NodeID, shard.Err))
			continue
		}
		failed := 0
		var first error
		for _, t := range shard.Resp.(*kmsg.ListOffsetsResponse).Topics {
			for _, pt := range t.Partitions {
				if err := kerr.ErrorForCode(pt.ErrorCode); err != nil {
					if failed++; first == nil {
						first = fmt.Errorf("%s[%d]: %w", t.Topic, pt.Partition, err)
					}
					continue
				}
				if pt.Offset >= 0 {
					ends[tp{t.Topic, pt.Partition}] = pt.Offset
				}
			}
		}
		if failed > 0 && isAuthErr(first) {
			problems = append(problems, fmt.Sprintf("ListOffsets to broker %d: %d partitions failed, first %v", shard.Meta.NodeID, failed, first))
		}
	}
	return problems
}

// groupSeries are one group's series: state, status and lag at the
// configured granularity; it updates what is remembered of the group.
func (p *poller) groupSeries(g *group, lags []partLag, partitions map[string][]int32, denied map[string]bool, now time.Time) groupOut {
	m := p.st.groups[g.Name]
	if m == nil {
		m = &memory{moved: now}
		p.st.groups[g.Name] = m
	}
	if g.OffsetsRead {
		for t, c := range g.Offsets {
			old, ok := m.offsets[t]
			switch {
			case !ok:
			case c < old:
				m.resets++
				m.moved = now
			case c > old:
				m.moved = now
			}
		}
		m.offsets = g.Offsets
	}
	out := groupOut{name: g.Name}
	add := func(d *prometheus.Desc, t prometheus.ValueType, v float64, labels ...string) {
		k := seriesKey{desc: d, group: g.Name, n: len(labels)}
		copy(k.v[:], labels)
		out.series = append(out.series, p.buf.add(&p.st.labels, k, t, v))
	}
	add(descInfo, prometheus.GaugeValue, 1, g.Type, g.ProtocolType, g.Protocol, g.State)
	members := -1
	if g.Described {
		members = g.Members
		add(descMembers, prometheus.GaugeValue, float64(g.Members))
		unassigned := 0
		topics := map[string]bool{}
		for t := range g.Offsets {
			topics[t.Topic] = true
		}
		for _, t := range g.Subscribed {
			topics[t] = true
		}
		for t := range topics {
			if !p.topics.Match(t) {
				continue
			}
			for _, part := range partitions[t] {
				if !g.Assigned[tp{t, part}] {
					unassigned++
				}
			}
		}
		add(descUnassigned, prometheus.GaugeValue, float64(unassigned))
	}
	deniedTopics := map[string]bool{}
	for t := range g.Offsets {
		if denied[t.Topic] {
			deniedTopics[t.Topic] = true
		}
	}
	for _, t := range g.Subscribed {
		if denied[t] {
			deniedTopics[t] = true
		}
	}
	if len(deniedTopics) > 0 {
		add(descDeniedTopics, prometheus.GaugeValue, float64(len(deniedTopics)))
	}
	add(descMoved, prometheus.GaugeValue, float64(m.moved.UnixNano())/1e9)
	add(descResets, prometheus.CounterValue, float64(m.resets))

	if len(lags) > 0 {
		var total int64
		for _, l := range lags {
			total += l.records
			out.seconds = max(out.seconds, l.seconds)
		}
		m.history = trim(append(m.history, lagPoint{at: now, lag: total}), now, time.Duration(p.target.Groups.StallWindow))
		s := status(m.history, m.moved, members, g.State == "Empty", time.Duration(p.target.Groups.StallWindow))
		for _, st := range statusOrder {
			v := 0.0
			if st == s {
				v = 1
			}
			add(descStatus, prometheus.GaugeValue, v, st)
		}
		out.series = p.lagSeries(out.series, g.Name, lags, p.target.Groups.Granularity)
	}
	return out
}

// limit keeps whole groups within max_series: the groups furthest behind
// in seconds first, by powers of two so that small moves do not reorder
// them, then those kept at the last poll, then by name; the first group
// that does not fit and every one after it are dropped.
func (p *poller) limit(outs []groupOut) (kept []prometheus.Metric, dropped int) {
	// outs are in name order, the order of the series; the order of
	// priority is apart.
	order := make([]*groupOut, len(outs))
	for i := range outs {
		order[i] = &outs[i]
	}
	slices.SortFunc(order, func(a, b *groupOut) int {
		if ba, bb := bucket(a.seconds), bucket(b.seconds); ba != bb {
			return bb - ba
		}
		if ka, kb := p.st.kept[a.name], p.st.kept[b.name]; ka != kb {
			if ka {
				return -1
			}
			return 1
		}
		return compareStrings(a.name, b.name)
	})
	keptNames := map[string]bool{}
	full := false
	n := 0
	for _, o := range order {
		if full || n+len(o.series) > p.target.Groups.MaxSeries {
			full = true
			dropped += len(o.series)
			continue
		}
		n += len(o.series)
		keptNames[o.name] = true
	}
	kept = make([]prometheus.Metric, 0, n)
	for _, o := range outs {
		if keptNames[o.name] {
			kept = append(kept, o.series...)
		}
	}
	p.st.kept = keptNames
	switch {
	case dropped > 0 && !p.st.dropping:
		p.logger.Warn("consumer groups past groups.max_series: the groups least behind in seconds are not exported", "max_series", p.target.Groups.MaxSeries, "dropped_series", dropped, "kept_groups", len(keptNames), "groups", len(outs))
	case dropped == 0 && p.st.dropping:
		p.logger.Info("consumer groups within groups.max_series again", "max_series", p.target.Groups.MaxSeries)
	}
	p.st.dropping = dropped > 0
	return kept, dropped
}

// bucket is the power of two below seconds: groups within one bucket keep
// their order from poll to poll.
func bucket(seconds float64) int {
	b := 0
	for s := seconds; s >= 1; s /= 2 {
		b++
	}
	return b
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (p *poller) noteSkipped(skipped map[string]string) {
	for _, typ := range slices.Sorted(maps.Keys(skipped)) {
		if p.st.skipped[typ] != skipped[typ] {
			p.logger.Info("consumer groups of this type are not read", "type", typ, "reason", skipped[typ])
		}
	}
	p.st.skipped = skipped
}

func (p *poller) noteDenied(denied map[string]bool) {
	for _, t := range slices.Sorted(maps.Keys(denied)) {
		if !p.st.denied[t] {
			p.logger.Warn("consumer groups: a topic of a group may not be described (TOPIC_AUTHORIZATION_FAILED): no lag for its partitions", "topic", t)
		}
	}
	p.st.denied = denied
}

// pruneRecordTimes forgets the record timestamps of offsets no group is
// at any more.
func (p *poller) pruneRecordTimes(gs []*group) {
	if len(p.st.recordTimes) == 0 {
		return
	}
	poll := p.st.polls
	for _, g := range gs {
		for t, c := range g.Offsets {
			if rt, ok := p.st.recordTimes[tpo{t, c}]; ok && rt.poll != poll {
				rt.poll = poll
				p.st.recordTimes[tpo{t, c}] = rt
			}
		}
	}
	for k, rt := range p.st.recordTimes {
		if rt.poll != poll {
			delete(p.st.recordTimes, k)
		}
	}
}
