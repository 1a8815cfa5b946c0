package probes

import (
	"context"
	"errors"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
)

// watch runs every lag_interval: the topic's health (partitions added, topic
// deleted or recreated: then it closes recreated and returns), consumer lag
// in records and seconds, loss declared by the tracker, and probe_up.
func (p *Probe) watch(ctx context.Context, recreated chan<- struct{}) {
	interval := time.Duration(p.cfg.LagInterval)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := p.clk.now()
		if p.topicRecreated(ctx) {
			close(recreated)
			return
		}
		p.followBrokers(ctx)
		p.ev.Anomaly(event.Lost, p.tracker.Expire(now))
		p.expireShare(now)
		p.updateLag(ctx, now)
		p.describeGroup(ctx)
		p.live.update(now)
		if pr := p.producer.Load(); pr != nil {
			pr.trim() // memory taken while Kafka was away goes back
		}
	}
}

// updateLag reads end offsets and the group's committed offsets with kadm,
// and sets the two views of lag: from the probe consumer's own position
// (in-process, 0 when caught up) and from the group's committed offsets
// (what kafka_exporter, Burrow and kminion report). A view that cannot be
// read is dropped rather than left at its last value: an absent series says
// "unknown", a stale 0 would say "caught up" (event.Gauge).
func (p *Probe) updateLag(ctx context.Context, now time.Time) {
	if !p.cfg.Consumer.Enabled {
		return
	}
	if p.cfg.Consumer.IsShare() {
		p.updateShareLag(ctx)
		return
	}
	ctx, cancel := context.WithTimeout(ctx, time.Duration(p.cfg.LagInterval))
	defer cancel()
	// The last stable offsets before the end offsets: listed in this
	// order, neither passes the other, so the stable lag is never above
	// the lag.
	stable, stableKnown := p.stableOffsets(ctx)
	ends, err := p.admin.ListEndOffsets(ctx, p.cfg.Topic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		p.logger.Debug("listing end offsets failed", "err", err)
		p.ev.Lag(event.Lag{})
		return
	}
	committed, err := p.admin.FetchOffsets(ctx, p.cfg.Consumer.GroupID)
	if errors.Is(err, kerr.GroupIDNotFound) {
		committed, err = nil, nil
	}
	groupKnown := err == nil
	if err != nil {
		p.logger.Debug("fetching committed offsets failed", "err", err)
	}
	// A partition without a commit (added while the probe runs) is read
	// from its start: its lag counts from there until it has a position
	// (own view) or a commit (group view). Without the committed offsets
	// nothing tells a partition without a commit from one whose commit
	// could not be read, so no start offsets are needed.
	var starts kadm.ListedOffsets
	for part := range ends[p.cfg.Topic] {
		if c, ok := committed.Lookup(p.cfg.Topic, part); groupKnown && (!ok || c.At < 0) {
			if starts, err = p.admin.ListStartOffsets(ctx, p.cfg.Topic); err == nil {
				err = starts.Error()
			}
			if err != nil {
				p.logger.Debug("listing start offsets failed", "err", err)
				p.ev.Lag(event.Lag{})
				return
			}
			break
		}
	}
	var own, group lagView
	var stableLag int64
	ownKnown := true
	for part, end := range ends[p.cfg.Topic] {
		at := end.Offset // no start offset listed: every partition has a commit
		if start, ok := starts.Lookup(p.cfg.Topic, part); ok {
			at = start.Offset
		}
		c, hasCommit := committed.Lookup(p.cfg.Topic, part)
		if hasCommit = hasCommit && c.At >= 0; hasCommit {
			at = c.At
		}
		// Positions are read after the end offsets, so a record read in
		// between makes a position past its end: that is lag 0.
		pos, hasPos := p.positions.get(part)
		switch {
		case hasPos:
		case groupKnown:
			pos = at // nothing read yet: it starts there
		default:
			// Nothing read yet, and where it starts is unknown: the
			// own view is unknown too, never the whole topic.
			ownKnown = false
			continue
		}
		if groupKnown {
			// Without the group's offsets, at is no lower bound: the
			// samples the group view needs are kept.
			p.produceTimes.prune(part, min(at, pos))
		}
		own.add(p.produceTimes, part, end.Offset, pos)
		if s, ok := stable.Lookup(p.cfg.Topic, part); ok {
			stableLag += max(0, s.Offset-pos)
		} else {
			stableKnown = false
		}
		group.add(p.produceTimes, part, end.Offset, at)
	}
	var lag event.Lag
	if ownKnown {
		lag.Records, lag.Seconds = p.lagGauges(own, now)
	}
	if ownKnown && stableKnown {
		lag.Stable = event.Gauge{Value: float64(stableLag), Known: true}
	}
	if groupKnown {
		lag.GroupRecords, lag.GroupSeconds = p.lagGauges(group, now)
	}
	p.ev.Lag(lag)
}

// stableOffsets lists the last stable offsets of the probe topic for a
// read_committed probe: where its consumer stops until the open
// transactions before it end.
func (p *Probe) stableOffsets(ctx context.Context) (kadm.ListedOffsets, bool) {
	if !p.cfg.Consumer.ReadCommitted() {
		return nil, false
	}
	stable, err := p.admin.ListCommittedOffsets(ctx, p.cfg.Topic)
	if err == nil {
		err = stable.Error()
	}
	if err != nil {
		p.logger.Debug("listing last stable offsets failed", "err", err)
		return nil, false
	}
	return stable, true
}

// lagGauges are one view's lag in records and seconds; lag in seconds only
// where it is known (never with acks=0).
func (p *Probe) lagGauges(v lagView, now time.Time) (records, seconds event.Gauge) {
	records = event.Gauge{Value: float64(v.records), Known: true}
	if s, ok := v.seconds(now); ok && !ackless(p.cfg) {
		seconds = event.Gauge{Value: s, Known: true}
	}
	return records, seconds
}

// lagView sums one view of lag over partitions.
type lagView struct {
	records int64
	oldest  int64 // unix ns (probe clock) of the oldest record not read, 0 if none
	unknown bool  // a partition behind has no produce time to tell its age
}

// add counts partition's records from offset at to its end offset.
func (v *lagView) add(pt *produceTimes, partition int32, end, at int64) {
	lag := end - at
	if lag <= 0 {
		return
	}
	v.records += lag
	t, ok := pt.timeOf(partition, at)
	if !ok {
		v.unknown = true
		return
	}
	if v.oldest == 0 || t < v.oldest {
		v.oldest = t
	}
}

// seconds is the age of the oldest record not read; 0 when caught up, and
// not ok when a partition behind has no known produce time.
func (v lagView) seconds(now time.Time) (float64, bool) {
	switch {
	case v.unknown:
		return 0, false
	case v.oldest == 0:
		return 0, true
	}
	return max(since(v.oldest, now).Seconds(), 0), true
}
