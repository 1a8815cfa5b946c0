package groups

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// A poll's series are built from label pairs kept from poll to poll. A
// label pair is made once per name and value and shared by every series
// that carries it (a group's name by all of the group's series, a topic's
// by every group's series of it), so the memory kept grows with the
// groups and topics, not with their product; a series is a slice of
// pointers to them and its value. The series of a poll come in the order
// a scrape sorts them in (by label values, the labels by name), so that
// the sort finds them sorted.

// seriesKey names a series: its family, the group and up to four more
// label values, then the partition when part is set.
type seriesKey struct {
	desc      *prometheus.Desc
	group     string
	v         [4]string
	n         int
	partition int32
	part      bool
}

// shape is how a family's label values become its label pairs: the
// names in the order a series carries them (sorted, as
// prometheus.MustNewConstMetric sorts them), and for each the index of its
// value among the values passed (the group, the others, the partition).
type shape struct {
	names []string
	order []int
}

// shapeOf is d's shape, read from what prometheus.MustNewConstMetric
// writes for values that name their own index.
func shapeOf(d *prometheus.Desc, n int) shape {
	values := make([]string, n)
	for i := range values {
		values[i] = strconv.Itoa(i)
	}
	var m dto.Metric
	if err := prometheus.MustNewConstMetric(d, prometheus.GaugeValue, 0, values...).Write(&m); err != nil {
		panic(err)
	}
	var s shape
	for _, l := range m.Label {
		i, err := strconv.Atoi(l.GetValue())
		if err != nil || i >= n { // a constant label: no family here has one
			panic("groups: family " + d.String() + " has a constant label")
		}
		s.names = append(s.names, l.GetName())
		s.order = append(s.order, i)
	}
	return s
}

// pairKey is a label pair: its name and value.
type pairKey struct{ name, value string }

// usedPair is a label pair and the poll that last used it.
type usedPair struct {
	pair *dto.LabelPair
	poll uint64
}

// labelCache keeps the label pairs of the series of the last poll.
type labelCache struct {
	shapes     map[*prometheus.Desc]shape
	pairs      map[pairKey]*usedPair
	partitions map[int32]*usedPair
	poll       uint64
}

// pair is the label pair name=value, made when it is new. A value that is
// not valid UTF-8 (which a series may not carry) has its invalid bytes
// replaced.
func (c *labelCache) pair(name, value string) *dto.LabelPair {
	k := pairKey{name, value}
	e := c.pairs[k]
	if e == nil {
		v := value
		if !utf8.ValidString(v) {
			v = strings.ToValidUTF8(v, string(utf8.RuneError))
		}
		e = &usedPair{pair: &dto.LabelPair{Name: &k.name, Value: &v}}
		if c.pairs == nil {
			c.pairs = map[pairKey]*usedPair{}
		}
		c.pairs[k] = e
	}
	e.poll = c.poll
	return e.pair
}

// partitionPair is the label pair partition=p.
func (c *labelCache) partitionPair(p int32) *dto.LabelPair {
	e := c.partitions[p]
	if e == nil {
		name, v := "partition", strconv.Itoa(int(p))
		e = &usedPair{pair: &dto.LabelPair{Name: &name, Value: &v}}
		if c.partitions == nil {
			c.partitions = map[int32]*usedPair{}
		}
		c.partitions[p] = e
	}
	e.poll = c.poll
	return e.pair
}

// labels puts the label pairs of k into dst, which has room for them.
func (c *labelCache) labels(k seriesKey, dst []*dto.LabelPair) []*dto.LabelPair {
	n := 1 + k.n
	if k.part {
		n++
	}
	s, ok := c.shapes[k.desc]
	if !ok {
		s = shapeOf(k.desc, n)
		if c.shapes == nil {
			c.shapes = map[*prometheus.Desc]shape{}
		}
		c.shapes[k.desc] = s
	}
	for i, name := range s.names {
		switch j := s.order[i]; {
		case j == 0:
			dst = append(dst, c.pair(name, k.group))
		case j <= k.n:
			dst = append(dst, c.pair(name, k.v[j-1]))
		default:
			dst = append(dst, c.partitionPair(k.partition))
		}
	}
	return dst
}

// sweep forgets the label pairs no series of this poll used.
func (c *labelCache) sweep() {
	for k, e := range c.pairs {
		if e.poll != c.poll {
			delete(c.pairs, k)
		}
	}
	for k, e := range c.partitions {
		if e.poll != c.poll {
			delete(c.partitions, k)
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

// seriesBuf hands out a poll's series and their slices of label pairs
// from blocks, not one allocation each; a block is never reused, as the
// last poll's series may still be scraped.
type seriesBuf struct {
	block []series
	pairs []*dto.LabelPair
}

func (b *seriesBuf) add(c *labelCache, k seriesKey, typ prometheus.ValueType, v float64) prometheus.Metric {
	const most = 1 + len(k.v) + 1 // the group, the other values, the partition
	if cap(b.pairs)-len(b.pairs) < most {
		b.pairs = make([]*dto.LabelPair, 0, 1024)
	}
	start := len(b.pairs)
	b.pairs = c.labels(k, b.pairs)
	return b.addPairs(k.desc, typ, v, b.pairs[start:len(b.pairs):len(b.pairs)])
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
