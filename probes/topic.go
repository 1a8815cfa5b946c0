package probes

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kafka-bench/kafka_bench_exporter/backoff"
	"github.com/kafka-bench/kafka_bench_exporter/kclient"
	"github.com/kafka-bench/kafka_bench_exporter/probes/pacer"
)

// topicRetry spaces the attempts to make the probe topic ready: a topic
// still being created answers within the first few.
var topicRetry = backoff.Exp{First: 250 * time.Millisecond, Max: 10 * time.Second}

// ensureTopic creates the probe topic when it is missing (create_topic) and
// otherwise compares it with the configuration: a difference is logged and
// shown in kafka_bench_probe_info, never altered silently. It retries with
// backoff until Kafka answers or ctx ends.
func (p *Probe) ensureTopic(ctx context.Context) error {
	failures := 0
	// Records due while the cluster rejects the probe's credentials count
	// as failed with reason auth, so that a wrong password shows in
	// kafka_bench_produce_failed_total and not only in the log.
	due := pacer.New(pacer.RealClock(), time.Now(), p.cfg.Rate, 1)
	for {
		err := p.ensureTopicOnce(ctx)
		if err == nil {
			return nil
		}
		failures++
		wait := topicRetry.After(failures)
		n := due.SkipTo(time.Now())
		if kclient.IsAuthError(err) {
			if p.cfg.Rate <= 0 {
				n = 1
			}
			p.ev.Failed(ReasonAuth, int(n))
			p.errs.auth("probe topic not ready", err)
		} else {
			p.logger.Warn("probe topic not ready; retrying", "topic", p.cfg.Topic, "err", err, "retry_in", wait)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
}

// EnsureTopic makes the probe's topic ready through adm, as Run does at its
// start, for a caller that runs its own clients on it (the capacity
// canary), and returns its partition count.
func (p *Probe) EnsureTopic(ctx context.Context, adm *kadm.Client) (partitions int32, err error) {
	p.admin = adm
	if err := p.ensureTopic(ctx); err != nil {
		return 0, err
	}
	return p.partitions.Load(), nil
}

func (p *Probe) ensureTopicOnce(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	// Create first, describe after: franz-go caches metadata answers for a
	// few seconds, so describing a missing topic first would keep returning
	// "unknown topic" after it was created.
	if p.cfg.CreateTopic.Enabled {
		if err := p.createTopic(ctx); err != nil {
			return err
		}
	}
	td, err := p.describeTopic(ctx)
	if err != nil {
		return err
	}
	parts := int32(len(td.Partitions))
	rf := int16(0)
	for _, pd := range td.Partitions {
		rf = int16(len(pd.Replicas))
		break
	}
	want := p.cfg.CreateTopic
	// leader_on_every_broker may have added partitions: that is no surprise.
	spread := want.LeaderOnEveryBroker && parts > want.Partitions
	if (parts != want.Partitions && !spread) || (want.ReplicationFactor > 0 && rf != want.ReplicationFactor) {
		p.logger.Warn("existing probe topic differs from create_topic; using it as it is",
			"topic", p.cfg.Topic, "partitions", parts, "want_partitions", want.Partitions,
			"replication_factor", rf, "want_replication_factor", want.ReplicationFactor)
	}
	p.partitions.Store(parts)
	p.topicID = td.ID
	p.leaders.set(td.Partitions)
	p.ev.Topic(parts, rf)
	return nil
}

func (p *Probe) describeTopic(ctx context.Context) (kadm.TopicDetail, error) {
	return kclient.DescribeTopic(ctx, p.admin, p.cfg.Topic)
}

func (p *Probe) createTopic(ctx context.Context) error {
	ct := p.cfg.CreateTopic
	created, err := kclient.CreateTopic(ctx, p.admin, p.cfg.Topic, ct)
	if created {
		p.logger.Info("created probe topic", "topic", p.cfg.Topic, "partitions", ct.Partitions, "replication_factor", ct.ReplicationFactor)
	}
	return err
}

// topicRecreated checks the probe topic: when it is missing it is created
// again (with create_topic), and a topic whose id changed — recreated by us
// or by someone else — is reported, so the clients can start over.
func (p *Probe) topicRecreated(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, time.Duration(p.cfg.LagInterval))
	defer cancel()
	td, err := p.describeTopic(ctx)
	switch {
	case errors.Is(err, kerr.UnknownTopicOrPartition) || errors.Is(err, kerr.UnknownTopicID):
		if !p.cfg.CreateTopic.Enabled {
			p.errs.warn("topic-missing", "probe topic is missing and create_topic is off", "topic", p.cfg.Topic)
			return false
		}
		p.logger.Warn("probe topic is missing; creating it again", "topic", p.cfg.Topic)
		if err := p.createTopic(ctx); err != nil {
			p.logger.Warn("recreating the probe topic failed", "topic", p.cfg.Topic, "err", err)
		}
		return false // the next tick sees the new id
	case err != nil:
		p.logger.Debug("describing the probe topic failed", "err", err)
		return false
	case td.ID != p.topicID:
		// Records the new id, partitions and info.
		if err := p.ensureTopicOnce(ctx); err != nil {
			p.logger.Warn("reading the recreated probe topic failed", "topic", p.cfg.Topic, "err", err)
		}
		return true
	}
	if n := int32(len(td.Partitions)); n > p.partitions.Load() {
		p.logger.Info("probe topic gained partitions", "partitions", n)
		p.partitions.Store(n)
	}
	p.leaders.set(td.Partitions) // the broker label of the latency histograms
	return false
}

// startAtEnd commits the current end offsets for every partition the group
// has never committed, before the first record is produced. The consumer then
// starts exactly at this run's first record: it neither misses the start
// (which would look like loss) nor reads an old backlog. A committed offset
// out of range (retention deleted its records while the probe was away) is
// reset here, by auto.offset.reset, before the producer starts: reset by
// the consumer's client later, latest would jump past this run's first
// records, and they would count as lost.
func (p *Probe) startAtEnd(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	group := p.cfg.Consumer.GroupID
	committed, err := p.admin.FetchOffsets(ctx, group)
	if errors.Is(err, kerr.GroupIDNotFound) {
		committed, err = nil, nil // a new group: nothing committed yet
	}
	if err != nil {
		return fmt.Errorf("fetching offsets of group %q: %w", group, err)
	}
	return kclient.CommitStarts(ctx, p.admin, p.cfg.Topic, group, func(part int32, start, end int64) (int64, bool) {
		c, ok := committed.Lookup(p.cfg.Topic, part)
		switch {
		case !ok || c.At < 0:
			return end, true
		case c.At >= start && c.At <= end:
			return 0, false // resumed where the group left off
		}
		at := start
		if p.cfg.Consumer.AutoOffsetReset == "latest" {
			at = end
		}
		p.logger.Info("the group's committed offset is out of range; reset by auto.offset.reset before producing",
			"partition", part, "committed", c.At, "start_offset", start, "end_offset", end,
			"auto_offset_reset", p.cfg.Consumer.AutoOffsetReset, "reset_to", at)
		return at, true
	})
}
