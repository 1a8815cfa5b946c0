package groups

import (
	"slices"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/kafka-bench/kafka_bench_exporter/config"
)

// A series' label pairs are what prometheus.MustNewConstMetric makes of
// the same values, for every family shape: the labels sorted by name
// whatever their order in the family.
func TestLabelsAsConstMetrics(t *testing.T) {
	records, _ := lagDescs(config.GranularityPartition)
	topicRecords, _ := lagDescs(config.GranularityTopic)
	cases := []struct {
		k      seriesKey
		values []string
	}{
		{seriesKey{desc: descInfo, group: "g", v: [4]string{"consumer", "consumer", "range", "Stable"}, n: 4}, []string{"g", "consumer", "consumer", "range", "Stable"}},
		{seriesKey{desc: descStatus, group: "g", v: [4]string{"ok"}, n: 1}, []string{"g", "ok"}},
		{seriesKey{desc: descMembers, group: "g"}, []string{"g"}},
		{seriesKey{desc: records, group: "g", v: [4]string{"orders"}, n: 1, partition: 12, part: true}, []string{"g", "orders", "12"}},
		{seriesKey{desc: topicRecords, group: "g", v: [4]string{"orders"}, n: 1}, []string{"g", "orders"}},
	}
	var c labelCache
	for _, tc := range cases {
		var want dto.Metric
		if err := prometheus.MustNewConstMetric(tc.k.desc, prometheus.GaugeValue, 0, tc.values...).Write(&want); err != nil {
			t.Fatal(err)
		}
		got := c.labels(tc.k, nil)
		if !slices.EqualFunc(got, want.Label, func(a, b *dto.LabelPair) bool {
			return a.GetName() == b.GetName() && a.GetValue() == b.GetValue()
		}) {
			t.Errorf("%s: labels %v, want %v", tc.k.desc, got, want.Label)
		}
	}
}

// A label pair is made once and shared by every series that carries it,
// and forgotten once no series of a poll uses it; a value that is not
// valid UTF-8 is mended rather than refused (the registry would refuse the
// whole scrape).
func TestLabelPairsShared(t *testing.T) {
	records, _ := lagDescs(config.GranularityPartition)
	var c labelCache
	a := c.labels(seriesKey{desc: records, group: "g", v: [4]string{"t"}, n: 1, partition: 0, part: true}, nil)
	b := c.labels(seriesKey{desc: descMembers, group: "g"}, nil)
	if a[0] != b[0] {
		t.Errorf("two series of group g carry different pairs %p and %p", a[0], b[0])
	}
	c.sweep()
	c.labels(seriesKey{desc: descMembers, group: "h"}, nil)
	c.sweep()
	if _, ok := c.pairs[pairKey{"group", "g"}]; ok {
		t.Error("the pair of group g kept after a poll without it")
	}
	if len(c.partitions) != 0 {
		t.Errorf("partition pairs kept after a poll without them: %d", len(c.partitions))
	}
	bad := c.labels(seriesKey{desc: descMembers, group: "g\xff"}, nil)
	if v := bad[0].GetValue(); v != "g\uFFFD" {
		t.Errorf("group g\\xff labelled %q, want %q", v, "g\uFFFD")
	}
}
