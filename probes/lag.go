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
		p.updateUp(now)
		if pr := p.producer.Load(); pr != nil {
			pr.pool.Trim() // memory taken while Kafka was away goes back
		}
	}
}

// upWindow is how recent the last produced and consumed record must be for
// probe_up = 1: two lag intervals, or three rounds of records at low rates.
func (p *Probe) upWindow() time.Duration {
	return max(2*time.Duration(p.cfg.LagInterval), 3*roundPeriod(p.cfg, p.partitions.Load()))
}

func (p *Probe) updateUp(now time.Time) {
	w := p.upWindow().Nanoseconds()
	up := now.UnixNano()-p.lastProduced.Load() < w
	if p.cfg.Consumer.Enabled {
		up = up && now.UnixNano()-p.lastConsumed.Load() < w
	}
	was := p.up.Swap(up)
	switch {
	case up:
		p.m.up.Set(1)
		if !was {
			p.logger.Info("probe is up: records are produced and consumed")
		}
	default:
		p.m.up.Set(0)
		if was {
			p.logger.Warn("probe is down: no records produced or consumed within the window", "window", p.upWindow())
		}
	}
}

// updateLag reads end offsets and the group's committed offsets with kadm.
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
	if err != nil {
		p.logger.Debug("fetching committed offsets failed", "err", err)
		return
	}
	var lagRecords int64
	var oldest int64 // unix ns of the oldest unconsumed record, 0 if none
	for part, end := range ends[p.cfg.Topic] {
		c, ok := committed.Lookup(p.cfg.Topic, part)
		if !ok || c.At < 0 {
			continue
		}
		p.produceTimes.prune(part, c.At)
		if lag := end.Offset - c.At; lag > 0 {
			lagRecords += lag
			if t, ok := p.produceTimes.timeOf(part, c.At); ok && (oldest == 0 || t < oldest) {
				oldest = t
			}
		}
	}
	p.m.lagRecords.Set(float64(lagRecords))
	lagSeconds := 0.0
	if oldest > 0 {
		lagSeconds = max(now.Sub(time.Unix(0, oldest)).Seconds(), 0)
	}
	p.m.lagSeconds.Set(lagSeconds)
}
