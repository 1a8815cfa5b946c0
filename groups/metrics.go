package groups

import (
	"slices"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kafka-bench/kafka_bench_exporter/config"
)

// Statuses of a group (status.go), the status label of
// kafka_bench_group_status, in this order.
var Statuses = []string{StatusOK, StatusLagging, StatusStalled, StatusStopped}

// statusOrder are the statuses in the order a scrape sorts their series.
var statusOrder = slices.Sorted(slices.Values(Statuses))

// The families. The lag families' labels follow groups.granularity
// (lagLabels); every other per-group family is labelled with the group.
var (
	descPollDuration = prometheus.NewDesc("kafka_bench_group_poll_duration_seconds",
		"How long the last poll of the consumer groups took (groups.interval).", nil, nil)
	descPollSuccess = prometheus.NewDesc("kafka_bench_group_poll_success",
		"1 if the last poll of the consumer groups read every group it listed, else 0 (a broker unreachable, a group or offsets that could not be read: see the log).", nil, nil)
	descPollLast = prometheus.NewDesc("kafka_bench_group_poll_last_success_timestamp_seconds",
		"Unix time of the last poll of the consumer groups that succeeded; the group families are from the last poll, which may be older.", nil, nil)
	descGroups = prometheus.NewDesc("kafka_bench_groups",
		"Groups exported at the last poll, by type (classic, consumer, share, streams).", []string{"type"}, nil)
	descDropped = prometheus.NewDesc("kafka_bench_group_series_dropped",
		"Per-group series left out at the last poll to stay within groups.max_series (the groups least behind in seconds are dropped, whole).", nil, nil)
	descTopicsDenied = prometheus.NewDesc("kafka_bench_group_topics_denied",
		"Topics of the exported groups (subscribed, or with a committed offset) that the exporter may not describe (TOPIC_AUTHORIZATION_FAILED): no lag is exported for their partitions.", nil, nil)
	descTypeSkipped = prometheus.NewDesc("kafka_bench_group_type_skipped_info",
		"1 for each group type this exporter does not read on this cluster, with the reason (a broker that does not advertise the API that describes it).", []string{"type", "reason"}, nil)
	descNotRead = prometheus.NewDesc("kafka_bench_group_not_read_info",
		"1 for each selected group that was not read, with its type and the reason: a type this exporter cannot read (a Connect workers' group), a type the cluster does not serve, a group named in groups.allow that no broker lists (not visible: missing, or not authorised), or a group the last poll could not describe.", []string{"group", "type", "reason"}, nil)
	descInfo = prometheus.NewDesc("kafka_bench_group_info",
		"1 for each exported group, with its type (classic, consumer, share, streams), protocol type (classic groups: consumer, or another client's), protocol (the assignor) and state, as its coordinator describes it.", []string{"group", "type", "protocol_type", "protocol", "state"}, nil)
	descMembers = prometheus.NewDesc("kafka_bench_group_members",
		"Members of the group at the last poll.", []string{"group"}, nil)
	descUnassigned = prometheus.NewDesc("kafka_bench_group_unassigned_partitions",
		"Partitions of the group's topics (those it committed offsets for or subscribes to) that no member owns.", []string{"group"}, nil)
	descDeniedTopics = prometheus.NewDesc("kafka_bench_group_denied_topics",
		"Topics of the group (subscribed, or with a committed offset) that the exporter may not describe: no lag for their partitions; present only when above 0. Kafka leaves such topics' committed offsets out of OffsetFetch, so a topic is known only when a member subscribes to it.", []string{"group"}, nil)
	descMoved = prometheus.NewDesc("kafka_bench_group_offsets_moved_timestamp_seconds",
		"Unix time of the poll that last saw one of the group's committed offsets move (its first poll when none has moved since the exporter started).", []string{"group"}, nil)
	descResets = prometheus.NewDesc("kafka_bench_group_offset_resets_total",
		"Committed offsets of the group seen going backwards from one poll to the next (an offset reset).", []string{"group"}, nil)
	descStatus = prometheus.NewDesc("kafka_bench_group_status",
		"1 for the group's status at the last poll, 0 for the others: ok, lagging, stalled, stopped (rules in How it measures, Consumer groups).", []string{"group", "status"}, nil)
)

// lagLabels are the lag families' labels at a granularity.
func lagLabels(granularity string) []string {
	switch granularity {
	case config.GranularityGroup:
		return []string{"group"}
	case config.GranularityPartition:
		return []string{"group", "topic", "partition"}
	}
	return []string{"group", "topic"}
}

// lagFamilies are the lag families of each granularity, made once: a
// series is known from poll to poll by its family (series.go).
var lagFamilies = func() map[string][2]*prometheus.Desc {
	out := map[string][2]*prometheus.Desc{}
	for _, g := range []string{config.GranularityGroup, config.GranularityTopic, config.GranularityPartition} {
		r, s := newLagDescs(g)
		out[g] = [2]*prometheus.Desc{r, s}
	}
	return out
}()

// lagDescs are the lag families at a granularity.
func lagDescs(granularity string) (records, seconds *prometheus.Desc) {
	if d, ok := lagFamilies[granularity]; ok {
		return d[0], d[1]
	}
	return newLagDescs(granularity)
}

func newLagDescs(granularity string) (records, seconds *prometheus.Desc) {
	l := lagLabels(granularity)
	records = prometheus.NewDesc("kafka_bench_group_lag_records",
		"High watermark minus the group's committed offset (a share group: the broker's own lag), 0 when caught up, summed over partitions at groups.granularity; no series while unknown, none for a partition without a committed offset.", l, nil)
	seconds = prometheus.NewDesc("kafka_bench_group_lag_seconds",
		"How long ago the first record the group has not consumed was written, 0 when caught up; the largest over partitions at groups.granularity (see How it measures, Consumer groups).", l, nil)
	return records, seconds
}
