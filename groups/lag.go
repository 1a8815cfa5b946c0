package groups

import (
	"bytes"
	"cmp"
	"slices"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kafka-bench/kafka_bench_exporter/config"
)

// lagSeries adds a group's lag families at a granularity to out: records
// summed, seconds the largest, over the partitions of each series. A
// series whose partitions' seconds are not all known has no seconds (no
// series while unknown). lags are sorted in the order of the series.
func (p *poller) lagSeries(out []prometheus.Metric, group string, lags []partLag, granularity string) []prometheus.Metric {
	descRecords, descSeconds := lagDescs(granularity)
	// The order a scrape sorts the series in: by label values, the labels
	// by name (group, partition, topic).
	same := func(_, _ partLag) bool { return true }
	switch granularity {
	case config.GranularityTopic:
		slices.SortFunc(lags, func(a, b partLag) int { return cmp.Compare(a.Topic, b.Topic) })
		same = func(a, b partLag) bool { return a.Topic == b.Topic }
	case config.GranularityPartition:
		slices.SortFunc(lags, func(a, b partLag) int {
			if c := comparePartitions(a.Partition, b.Partition); c != 0 {
				return c
			}
			return cmp.Compare(a.Topic, b.Topic)
		})
		same = func(a, b partLag) bool { return a.tp == b.tp }
	}
	start := len(out)
	var seconds []float64 // of each row, < 0 unknown
	for i := 0; i < len(lags); {
		j, records, secs := i, int64(0), 0.0
		for ; j < len(lags) && same(lags[i], lags[j]); j++ {
			records += lags[j].records
			if lags[j].seconds < 0 || secs < 0 {
				secs = -1
			} else {
				secs = max(secs, lags[j].seconds)
			}
		}
		k := seriesKey{desc: descRecords, group: group}
		switch granularity {
		case config.GranularityTopic:
			k.v[0], k.n = lags[i].Topic, 1
		case config.GranularityPartition:
			k.v[0], k.n, k.partition, k.part = lags[i].Topic, 1, lags[i].Partition, true
		}
		out = append(out, p.buf.add(&p.st.labels, k, prometheus.GaugeValue, float64(records)))
		seconds = append(seconds, secs)
		i = j
	}
	rows := out[start:]
	for i, s := range seconds {
		if s >= 0 {
			out = append(out, p.buf.addPairs(descSeconds, prometheus.GaugeValue, s, rows[i].(*series).labels))
		}
	}
	return out
}

// comparePartitions orders partitions as their label values (strings).
func comparePartitions(a, b int32) int {
	if a == b {
		return 0
	}
	var x, y [12]byte
	return bytes.Compare(strconv.AppendInt(x[:0], int64(a), 10), strconv.AppendInt(y[:0], int64(b), 10))
}
