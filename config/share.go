package config

import (
	"fmt"
	"math"
	"time"

	"github.com/prometheus/common/model"
)

// Consumer kinds: consumer.kind.
const (
	// ConsumerKindGroup is a consumer group: each partition read by one
	// member, offsets committed.
	ConsumerKindGroup = "group"
	// ConsumerKindShare is a share group (KIP-932, queues for Kafka): the
	// members share every partition and acknowledge each record.
	ConsumerKindShare = "share"
)

// Share is the share group of a probe with consumer.kind share.
type Share struct {
	// GroupID is the share group's id (default kafka-bench-<name>-share:
	// a group id is either a consumer group's or a share group's).
	GroupID string `yaml:"group.id" default:"{kafka-bench-<name>-share}" values:"not empty" doc:"the share group ({consumer.kind: share}); its {share.auto.offset.reset} is set to earliest at start"`
	// RecordLockDurationMS, when set, is the group's
	// share.record.lock.duration.ms, set by the probe at start; 0 keeps
	// the group's (or the broker's group.share.record.lock.duration.ms).
	RecordLockDurationMS int `yaml:"record.lock.duration.ms" default:"0 (the group's)" values:"0, or within the broker's {group.share.min.record.lock.duration.ms} … {group.share.max.record.lock.duration.ms}" doc:"set as the group's {share.record.lock.duration.ms} at start"`
	// DeliveryCountLimit, when set, is the group's
	// share.delivery.count.limit, set by the probe at start; 0 keeps the
	// group's (or the broker's).
	DeliveryCountLimit int `yaml:"delivery.count.limit" default:"0 (the group's)" values:"0, or 2 … 10 (within the broker's bounds)" doc:"set as the group's {share.delivery.count.limit} at start: the delivery attempts before the broker archives a record"`
	// Faults exercise redelivery on purpose; all off by default.
	Faults ShareFaults `yaml:"faults"`
}

// ShareFaults make the probe's members misbehave on purpose, so the
// redeliveries they cause show in the metrics (and no record is lost).
type ShareFaults struct {
	// ReleaseFraction of the records, chosen by their sequence number on
	// their first delivery, are released for redelivery.
	ReleaseFraction float64 `yaml:"release_fraction" values:"0 … 1" doc:"records released on their first delivery, chosen by sequence number: redeliveries by release"`
	// RejectFraction of the records, chosen likewise (apart from the
	// released ones), are rejected: the broker archives them.
	RejectFraction float64 `yaml:"reject_fraction" values:"0 … 1 − {release_fraction}" doc:"records rejected on their first delivery, chosen likewise: archived"`
	// Hold, when set, makes member 0 keep the records of one poll this
	// long before acknowledging them, once every HoldInterval: longer
	// than the record lock, they are delivered to another member (lock
	// expired) and the late accept fails.
	Hold model.Duration `yaml:"hold" default:"0s (off)" values:"≥ 0" doc:"member 0 keeps one poll's records this long before accepting them; past the record lock they go to another member (redeliveries by lock expiry) and the late accept fails"`
	// HoldInterval is the time between two holds.
	HoldInterval model.Duration `yaml:"hold_interval" values:"> {hold}" doc:"time between two holds"`
}

// Share defaults.
const (
	DefaultShareHoldInterval = time.Minute
	// maxDeliveryCountLimit is the broker's upper bound of
	// share.delivery.count.limit.
	maxDeliveryCountLimit = 10
	minDeliveryCountLimit = 2
)

// SetDefaults fills the share block's defaults.
func (s *Share) SetDefaults() {
	s.Faults.HoldInterval = model.Duration(DefaultShareHoldInterval)
}

// IsShare says the probe reads with a share group.
func (c *Consumer) IsShare() bool { return c.Kind == ConsumerKindShare }

// validateShareKind refuses, with consumer.kind share, the consumer keys
// of a consumer group alone: a share-group member has nothing to apply
// them to. Java's share consumer refuses the same keys
// (auto.offset.reset, group.protocol, group.remote.assignor,
// partition.assignment.strategy, group.instance.id); it ignores
// max.poll.interval.ms, which the probe refuses too rather than accept a
// key it does not apply. group.id, auto.commit.interval.ms and the session
// and heartbeat keys have defaults and are documented as not applying;
// isolation.level is the group's share.isolation.level.
func (c *Consumer) validateShareKind(s string) error {
	const only = "applies to a consumer group only, not with consumer.kind share: "
	switch {
	case c.AutoOffsetReset != "earliest":
		return FieldError(s, "consumer.auto.offset.reset", c.AutoOffsetReset, only+"a new share group starts at the topic's end, then reads on from where it is (the probe sets its share.auto.offset.reset to earliest)")
	case c.GroupProtocol != GroupProtocolClassic:
		return FieldError(s, "consumer.group.protocol", c.GroupProtocol, only+"a share group runs the share group protocol (KIP-932)")
	case c.GroupRemoteAssignor != "":
		return FieldError(s, "consumer.group.remote.assignor", c.GroupRemoteAssignor, only+"the broker assigns a share group's partitions with its own assignor")
	case c.PartitionAssignmentStrategy != "":
		return FieldError(s, "consumer.partition.assignment.strategy", c.PartitionAssignmentStrategy, only+"the broker assigns a share group's partitions")
	case c.GroupInstanceID != "":
		return FieldError(s, "consumer.group.instance.id", c.GroupInstanceID, only+"a share group has no static membership")
	case c.MaxPollIntervalMS != nil:
		return FieldError(s, "consumer.max.poll.interval.ms", *c.MaxPollIntervalMS, only+"a share group member has no rebalance timeout (a record not acknowledged within the record lock comes back)")
	case c.Churn != nil:
		return FieldError(s, "consumer.churn.interval", c.Churn.Interval, "consumer.churn "+only+"its extra member joins a consumer group")
	}
	return nil
}

func (s *Share) validate(scope string) error {
	f := s.Faults
	switch {
	case s.GroupID == "":
		return FieldError(scope, "consumer.share.group.id", s.GroupID, "must not be empty")
	case s.RecordLockDurationMS < 0:
		return FieldError(scope, "consumer.share.record.lock.duration.ms", s.RecordLockDurationMS, "must be >= 0 (0: the group's)")
	case s.DeliveryCountLimit != 0 && (s.DeliveryCountLimit < minDeliveryCountLimit || s.DeliveryCountLimit > maxDeliveryCountLimit):
		return FieldError(scope, "consumer.share.delivery.count.limit", s.DeliveryCountLimit,
			fmt.Sprintf("must be 0 (the group's) or between %d and %d", minDeliveryCountLimit, maxDeliveryCountLimit))
	case !fraction(f.ReleaseFraction):
		return FieldError(scope, "consumer.share.faults.release_fraction", f.ReleaseFraction, "must be between 0 and 1")
	case !fraction(f.RejectFraction):
		return FieldError(scope, "consumer.share.faults.reject_fraction", f.RejectFraction, "must be between 0 and 1")
	case f.ReleaseFraction+f.RejectFraction > 1:
		return FieldError(scope, "consumer.share.faults.reject_fraction", f.RejectFraction, "must be at most 1 - release_fraction")
	case f.Hold < 0:
		return FieldError(scope, "consumer.share.faults.hold", f.Hold, "must be >= 0")
	case f.Hold > 0 && f.HoldInterval <= f.Hold:
		return FieldError(scope, "consumer.share.faults.hold_interval", f.HoldInterval, "must be longer than hold")
	}
	return nil
}

func fraction(v float64) bool { return !math.IsNaN(v) && v >= 0 && v <= 1 }
