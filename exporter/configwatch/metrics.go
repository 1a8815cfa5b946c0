package configwatch

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
)

// ValueAllowList are the numeric broker settings exported as
// kafka_bench_broker_config_value: those the seeds tuned or that move
// throughput. A fixed list keeps the cardinality at brokers × len(list);
// docs/reference/metrics.md lists them, generated from here.
var ValueAllowList = []string{
	"background.threads",
	"default.replication.factor",
	"log.cleaner.threads",
	"log.flush.interval.messages",
	"log.flush.interval.ms",
	"log.segment.bytes",
	"message.max.bytes",
	"min.insync.replicas",
	"num.io.threads",
	"num.network.threads",
	"num.partitions",
	"num.recovery.threads.per.data.dir",
	"num.replica.fetchers",
	"queued.max.requests",
	"replica.fetch.max.bytes",
	"replica.fetch.min.bytes",
	"replica.fetch.response.max.bytes",
	"replica.fetch.wait.max.ms",
	"replica.lag.time.max.ms",
	"replica.socket.receive.buffer.bytes",
	"socket.receive.buffer.bytes",
	"socket.request.max.bytes",
	"socket.send.buffer.bytes",
}

// metrics are the configuration metrics. Every family is a vector, even
// those without labels, so that turning polling off (or pointing the
// exporter at another cluster) removes every series instead of leaving
// stale values behind.
type metrics struct {
	brokerInfo       *prometheus.GaugeVec   // broker, hash
	brokerChanges    *prometheus.CounterVec // broker
	brokerLastChange *prometheus.GaugeVec   // broker
	brokerValue      *prometheus.GaugeVec   // broker, name
	brokerRack       *prometheus.GaugeVec   // broker, rack, version
	brokerRestarts   *prometheus.CounterVec // broker
	brokerVersions   *prometheus.CounterVec // broker
	topicInfo        *prometheus.GaugeVec   // probe, topic, hash
	topicChanges     *prometheus.CounterVec // probe, topic
	clusterBrokers   *prometheus.GaugeVec
	clusterInfo      *prometheus.GaugeVec // cluster_id, controller, version, metadata_version, transaction_version, share_version
	pollSuccess      *prometheus.GaugeVec
	pollDuration     *prometheus.GaugeVec
	describeFailed   *prometheus.CounterVec // resource
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		brokerInfo: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "kafka_bench_broker_config_info",
			Help: "1 for each broker, labelled with a hash of its configuration that is not at Kafka's default; the hash changes when any such key changes.",
		}, []string{"broker", "hash"}),
		brokerChanges: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kafka_bench_broker_config_changes_total",
			Help: "Polls that found the broker's configuration changed since the previous poll.",
		}, []string{"broker"}),
		brokerLastChange: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "kafka_bench_broker_config_last_change_timestamp_seconds",
			Help: "Unix time of the poll that last found the broker's configuration changed; 0 until one does.",
		}, []string{"broker"}),
		brokerValue: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "kafka_bench_broker_config_value",
			Help: "Effective value of a numeric broker setting from a fixed allow-list (see docs/configuration.md, Configuration changes).",
		}, []string{"broker", "name"}),
		brokerRack: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "kafka_bench_broker_info",
			Help: "1 for each broker in the cluster metadata, with its rack (empty when unset) and its release as its ApiVersions answer tells (the highest metadata.version it supports: patch releases share one, so 4.1.0 and 4.1.1 both read v4.1; empty until it answered); a broker that leaves the metadata (a restart) loses its series within seconds.",
		}, []string{"broker", "rack", "version"}),
		brokerRestarts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kafka_bench_broker_restarts_total",
			Help: "Restarts of the broker seen: it left the cluster metadata and came back (watched every few seconds and at once when a connection to it drops), or it answered with another release.",
		}, []string{"broker"}),
		brokerVersions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kafka_bench_broker_version_changes_total",
			Help: "Polls that found the broker answering with another release than before (kafka_bench_broker_info's version label), such as a rolling upgrade's restart.",
		}, []string{"broker"}),
		topicInfo: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "kafka_bench_topic_config_info",
			Help: "1 for each probe topic, labelled with a hash of the configuration set on the topic.",
		}, []string{"probe", "topic", "hash"}),
		topicChanges: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kafka_bench_topic_config_changes_total",
			Help: "Polls that found the probe topic's configuration changed since the previous poll.",
		}, []string{"probe", "topic"}),
		clusterBrokers: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "kafka_bench_cluster_brokers",
			Help: "Brokers in the cluster metadata at the last poll.",
		}, nil),
		clusterInfo: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "kafka_bench_cluster_info",
			Help: "1, labelled with the cluster id, the active controller's id, the Kafka version (comma-separated while brokers differ), and the finalized levels of metadata.version (empty without KRaft), transaction.version (2: KIP-890's server-side defence, which transactional probes then run under) and share.version (share groups; empty when not finalized).",
		}, []string{"cluster_id", "controller", "version", "metadata_version", "transaction_version", "share_version"}),
		pollSuccess: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "kafka_bench_config_poll_success",
			Help: "1 if the last configuration poll described every broker and probe topic, else 0 (unreachable, or DescribeConfigs denied).",
		}, nil),
		pollDuration: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "kafka_bench_config_poll_duration_seconds",
			Help: "How long the last configuration poll took.",
		}, nil),
		describeFailed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kafka_bench_config_describe_failed_total",
			Help: "Metadata requests (resource cluster) and broker or probe topic DescribeConfigs (broker, topic) that failed, e.g. TOPIC_AUTHORIZATION_FAILED; a probe topic that does not exist yet is not counted.",
		}, []string{"resource"}),
	}
	reg.MustRegister(m.brokerInfo, m.brokerChanges, m.brokerLastChange, m.brokerValue, m.brokerRack, m.brokerRestarts, m.brokerVersions,
		m.topicInfo, m.topicChanges, m.clusterBrokers, m.clusterInfo, m.pollSuccess, m.pollDuration, m.describeFailed)
	return m
}

// reset removes every series.
func (m *metrics) reset() {
	for _, v := range []interface{ Reset() }{m.brokerInfo, m.brokerChanges, m.brokerLastChange, m.brokerValue,
		m.brokerRack, m.brokerRestarts, m.brokerVersions, m.topicInfo, m.topicChanges, m.clusterBrokers, m.clusterInfo, m.pollSuccess, m.pollDuration,
		m.describeFailed} {
		v.Reset()
	}
}

// setBrokerValues exports the allow-listed settings that have a numeric
// value; a setting without one (null, or not described) has no series.
func (m *metrics) setBrokerValues(broker string, c Configs) {
	for _, name := range ValueAllowList {
		e, ok := c[name]
		var v float64
		var err error
		if ok && !e.Sensitive && !e.Null {
			v, err = strconv.ParseFloat(e.Value, 64)
		}
		if !ok || e.Sensitive || e.Null || err != nil {
			m.brokerValue.DeleteLabelValues(broker, name)
			continue
		}
		m.brokerValue.WithLabelValues(broker, name).Set(v)
	}
}
