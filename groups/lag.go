package groups

import (
	"slices"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kafka-bench/kafka_bench_exporter/config"
)

// lagSeries are a group's lag families at a granularity: records summed,
// seconds the largest, over the partitions of each series. A series whose
// partitions' seconds are not all known has no seconds (no series while
// unknown).
func lagSeries(group string, lags []partLag, granularity string) []prometheus.Metric {
	descRecords, descSeconds := lagDescs(granularity)
	type agg struct {
		labels  []string
		records int64
		seconds float64
		unknown bool
	}
	rows := map[string]*agg{}
	var keys []string
	for _, l := range lags {
		labels := []string{group}
		switch granularity {
		case config.GranularityTopic:
			labels = append(labels, l.Topic)
		case config.GranularityPartition:
			labels = append(labels, l.Topic, strconv.Itoa(int(l.Partition)))
		}
		key := strings.Join(labels, "\x00")
		a := rows[key]
		if a == nil {
			a = &agg{labels: labels}
			rows[key] = a
			keys = append(keys, key)
		}
		a.records += l.records
		if l.seconds < 0 {
			a.unknown = true
		} else {
			a.seconds = max(a.seconds, l.seconds)
		}
	}
	slices.Sort(keys)
	out := make([]prometheus.Metric, 0, 2*len(keys))
	for _, k := range keys {
		a := rows[k]
		out = append(out, prometheus.MustNewConstMetric(descRecords, prometheus.GaugeValue, float64(a.records), a.labels...))
		if !a.unknown {
			out = append(out, prometheus.MustNewConstMetric(descSeconds, prometheus.GaugeValue, a.seconds, a.labels...))
		}
	}
	return out
}
