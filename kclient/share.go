package kclient

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-bench/kafka_bench_exporter/config"
)

// ShareConsumerOpts maps the consumer properties of probe p (consumer.kind
// share) onto a franz-go share-group member; onAck hears the broker's
// answer to every acknowledgement.
func ShareConsumerOpts(p config.Probe, onAck func(*kgo.Client, kgo.ShareAckResults)) []kgo.Opt {
	return flatten(shareConsumerProps(p, onAck))
}

// shareConsumerProps are a share-group member's properties: the group, the
// records of a fetch, and the consumer properties both kinds apply
// (consumerKindsProps). consumer.isolation.level is the group's
// share.isolation.level, set by the probe, not a member's; the keys of a
// consumer group alone are refused by config (Consumer.validateShareKind).
func shareConsumerProps(p config.Probe, onAck func(*kgo.Client, kgo.ShareAckResults)) []property {
	c := p.Consumer
	maxRecords := int32(min(c.MaxPollRecords, 1<<31-1))
	props := []property{
		// Without topics to consume, the share group makes the client
		// connect to nothing: Check keeps it, which the share options
		// need.
		{key: "consumer.share.group.id", value: c.Share.GroupID, opts: []kgo.Opt{kgo.ShareGroup(c.Share.GroupID)}},
		{key: "topic", value: p.Topic, opts: []kgo.Opt{kgo.ConsumeTopics(p.Topic)}, starts: true},
		{opts: []kgo.Opt{kgo.ShareAckCallback(onAck)}, starts: true},
		// A transaction's marker has an offset the broker hands out
		// (acquires) with the records. Dropped by the client, it would be
		// acknowledged by the client on its own (a gap), and the broker's
		// answer to that acknowledgement reported through onAck like an
		// answer to the member's: kept, the member acknowledges it with
		// its own answers, and every answer is to an acknowledgement of
		// the member's.
		{opts: []kgo.Opt{kgo.KeepControlRecords()}},
		{key: "consumer.max.poll.records", value: c.MaxPollRecords, opts: []kgo.Opt{kgo.ShareMaxRecords(maxRecords)}},
	}
	return append(props, consumerKindsProps(c)...)
}

// Group configurations of a share group (IncrementalAlterConfigs and
// DescribeConfigs on the GROUP resource).
const (
	ShareAutoOffsetReset    = "share.auto.offset.reset"
	ShareRecordLockDuration = "share.record.lock.duration.ms"
	ShareDeliveryCountLimit = "share.delivery.count.limit"
	ShareIsolationLevel     = "share.isolation.level"
)

// ErrNoShareGroups is a cluster whose brokers cannot serve share groups.
var ErrNoShareGroups = errors.New("the cluster does not serve share groups")

// CheckShareGroups asks every broker for its API versions and returns an
// error wrapping ErrNoShareGroups, naming a broker and its version, when
// none serves share groups: no ShareGroupHeartbeat API, or the share.version
// feature not finalized (Kafka before 4.2 without share groups enabled).
func CheckShareGroups(ctx context.Context, adm *kadm.Client) error {
	vs, err := adm.ApiVersions(ctx)
	if err != nil {
		return fmt.Errorf("asking the brokers for their API versions: %w", err)
	}
	var first string
	for _, v := range vs.Sorted() {
		if v.Err != nil {
			return fmt.Errorf("asking broker %d for its API versions: %w", v.NodeID, v.Err)
		}
		_, heartbeat := v.KeyMaxVersion(kmsg.ShareGroupHeartbeat.Int16())
		share := int16(-1) // not finalized
		for _, f := range v.Raw().FinalizedFeatures {
			if f.Name == "share.version" {
				share = f.MaxVersionLevel
			}
		}
		if heartbeat && share >= 1 {
			return nil
		}
		if first == "" {
			first = fmt.Sprintf("broker %d runs Kafka %s, share.version %s", v.NodeID, v.VersionGuess(), featureLevel(share))
		}
	}
	if first == "" {
		return fmt.Errorf("%w: no broker answered", ErrNoShareGroups)
	}
	return fmt.Errorf("%w (%s): consumer.kind share needs Kafka 4.2 or later with share.version 1 or later finalized", ErrNoShareGroups, first)
}

func featureLevel(v int16) string {
	if v < 0 {
		return "not finalized"
	}
	return strconv.Itoa(int(v))
}

func ms(v int) time.Duration { return time.Duration(v) * time.Millisecond }

// SetShareGroupConfigs sets configs of share group group (a key with an
// empty value is left alone).
func SetShareGroupConfigs(ctx context.Context, cl *kgo.Client, group string, configs map[string]string) error {
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	res := kmsg.NewIncrementalAlterConfigsRequestResource()
	res.ResourceType, res.ResourceName = kmsg.ConfigResourceTypeGroupConfig, group
	var keys []string
	for k, v := range configs {
		if v == "" {
			continue
		}
		c := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
		c.Name, c.Value, c.Op = k, new(v), kmsg.IncrementalAlterConfigOpSet
		res.Configs = append(res.Configs, c)
		keys = append(keys, k+"="+v)
	}
	req.Resources = append(req.Resources, res)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return fmt.Errorf("setting share group %q configs %s: %w", group, strings.Join(keys, ", "), err)
	}
	for _, r := range resp.Resources {
		if err := kerr.ErrorForCode(r.ErrorCode); err != nil {
			msg := ""
			if r.ErrorMessage != nil {
				msg = ": " + *r.ErrorMessage
			}
			return fmt.Errorf("setting share group %q configs %s: %w%s", group, strings.Join(keys, ", "), err, msg)
		}
	}
	return nil
}

// ShareGroupConfigs reads the effective configs of share group group
// (the group's own, else the broker's defaults), by name.
func ShareGroupConfigs(ctx context.Context, cl *kgo.Client, group string) (map[string]string, error) {
	req := kmsg.NewPtrDescribeConfigsRequest()
	res := kmsg.NewDescribeConfigsRequestResource()
	res.ResourceType, res.ResourceName = kmsg.ConfigResourceTypeGroupConfig, group
	req.Resources = append(req.Resources, res)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return nil, fmt.Errorf("describing share group %q configs: %w", group, err)
	}
	out := map[string]string{}
	for _, r := range resp.Resources {
		if err := kerr.ErrorForCode(r.ErrorCode); err != nil {
			return nil, fmt.Errorf("describing share group %q configs: %w", group, err)
		}
		for _, c := range r.Configs {
			if c.Value != nil {
				out[c.Name] = *c.Value
			}
		}
	}
	return out, nil
}
