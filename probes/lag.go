package probes

import (
	"context"
	"errors"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
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
		now := time.Now()
		if p.topicRecreated(ctx) {
			close(recreated)
			return
		}
		p.m.lost.Add(float64(p.tracker.Expire(now)))
		p.updateLag(ctx, now)
		p.live.update(now)
		if pr := p.producer.Load(); pr != nil {
			pr.pool.Trim() // memory taken while Kafka was away goes back
		}
	}
}

// updateLag reads end offsets and the group's committed offsets with kadm,
// and sets the two views of lag: from the probe consumer's own position
// (in-process, 0 when caught up) and from the group's committed offsets
// (what kafka_exporter, Burrow and kminion report).
func (p *Probe) updateLag(ctx context.Context, now time.Time) {
	ctx, cancel := context.WithTimeout(ctx, time.Duration(p.cfg.LagInterval))
	defer cancel()
	ends, err := p.admin.ListEndOffsets(ctx, p.cfg.Topic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		p.logger.Debug("listing end offsets failed", "err", err)
		return
	}
	if !p.cfg.Consumer.Enabled {
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
	var own, group lagView
	for part, end := range ends[p.cfg.Topic] {
		c, hasCommit := committed.Lookup(p.cfg.Topic, part)
		hasCommit = hasCommit && c.At >= 0
		// Positions are read after the end offsets, so a record read in
		// between makes a position past its end: that is lag 0.
		pos, hasPos := p.positions.get(part)
		if !hasPos && hasCommit {
			pos, hasPos = c.At, true // nothing read yet: it starts there
		}
		switch {
		case hasCommit:
			p.produceTimes.prune(part, min(c.At, pos))
		case hasPos:
			p.produceTimes.prune(part, pos)
		}
		if hasPos {
			own.add(p.produceTimes, part, end.Offset, pos)
		}
		if hasCommit {
			group.add(p.produceTimes, part, end.Offset, c.At)
		}
	}
	p.m.lagRecords.Set(float64(own.records))
	p.m.lagSeconds.Set(own.seconds(now))
	if groupKnown {
		p.m.groupLagRecords.Set(float64(group.records))
		p.m.groupLagSeconds.Set(group.seconds(now))
	}
}

// lagView sums one view of lag over partitions.
type lagView struct {
	records int64
	oldest  int64 // unix ns of the oldest record not read, 0 if none
}

// add counts partition's records from offset at to its end offset.
func (v *lagView) add(pt *produceTimes, partition int32, end, at int64) {
	lag := end - at
	if lag <= 0 {
		return
	}
	v.records += lag
	if t, ok := pt.timeOf(partition, at); ok && (v.oldest == 0 || t < v.oldest) {
		v.oldest = t
	}
}

// seconds is the age of the oldest record not read; 0 when caught up.
func (v lagView) seconds(now time.Time) float64 {
	if v.oldest == 0 {
		return 0
	}
	return max(now.Sub(time.Unix(0, v.oldest)).Seconds(), 0)
}
