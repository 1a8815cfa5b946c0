package groups

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// A poll's series are built from label pairs kept from poll to poll: a
// series present at the last poll reuses its labels, and only its value is
// new. The series of a poll come in the order a scrape sorts them in (by
// label values, the labels by name), so that the sort finds them sorted.

// seriesKey names a series: its family, the group and up to four more
// label values, then the partition when part is set (formatted only when
// the series is new).
type seriesKey struct {
	desc      *prometheus.Desc
	group     string
	v         [4]string
	n         int
	partition int32
	part      bool
}

// labelPairs are a series' labels and the poll that last used them.
type labelPairs struct {
	pairs []*dto.LabelPair
	poll  uint64
}

// labelCache keeps the label pairs of the series of the last polls.
type labelCache struct {
	m    map[seriesKey]*labelPairs
	poll uint64
}

// pairs are the label pairs of k, made (and checked as
// prometheus.MustNewConstMetric does) when k is new.
func (c *labelCache) pairs(k seriesKey) []*dto.LabelPair {
	e := c.m[k]
	if e == nil {
		values := append([]string{k.group}, k.v[:k.n]...)
		if k.part {
			values = append(values, strconv.Itoa(int(k.partition)))
		}
		var m dto.Metric
		if err := prometheus.MustNewConstMetric(k.desc, prometheus.GaugeValue, 0, values...).Write(&m); err != nil {
			panic(err)
		}
		e = &labelPairs{pairs: m.Label}
		if c.m == nil {
			c.m = map[seriesKey]*labelPairs{}
		}
		c.m[k] = e
	}
	e.poll = c.poll
	return e.pairs
}

// sweep forgets the labels no series of this poll used.
func (c *labelCache) sweep() {
	for k, e := range c.m {
		if e.poll != c.poll {
			delete(c.m, k)
		}
	}
	c.poll++
}

// series is one series of a poll.
type series struct {
	desc   *prometheus.Desc
	typ    prometheus.ValueType
	value  float64
	labels []*dto.LabelPair
}

func (s *series) Desc() *prometheus.Desc { return s.desc }

// Write is what a prometheus.MustNewConstMetric of the same labels and
// value writes.
func (s *series) Write(m *dto.Metric) error {
	m.Label = s.labels
	v := s.value
	if s.typ == prometheus.CounterValue {
		m.Counter = &dto.Counter{Value: &v}
	} else {
		m.Gauge = &dto.Gauge{Value: &v}
	}
	return nil
}

// seriesBuf hands out a poll's series from blocks, not one allocation
// each; a block is never reused, as the last poll's series may still be
// scraped.
type seriesBuf struct{ block []series }

func (b *seriesBuf) add(c *labelCache, k seriesKey, typ prometheus.ValueType, v float64) prometheus.Metric {
	return b.addPairs(k.desc, typ, v, c.pairs(k))
}

// addPairs is a series of labels already made (another family's of the
// same labels).
func (b *seriesBuf) addPairs(d *prometheus.Desc, typ prometheus.ValueType, v float64, labels []*dto.LabelPair) prometheus.Metric {
	if len(b.block) == cap(b.block) {
		b.block = make([]series, 0, 256)
	}
	b.block = append(b.block, series{desc: d, typ: typ, value: v, labels: labels})
	return &b.block[len(b.block)-1]
}
