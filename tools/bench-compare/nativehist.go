package main

import (
	"math"
	"slices"

	dto "github.com/prometheus/client_model/go"

	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
)

// sparse is a native histogram's cumulative counts since the series began:
// the zero bucket and the positive buckets by index at schema (bucket i
// holds (base^(i-1), base^i], base = 2^(2^-schema)). Latencies are never
// negative, so there are no negative buckets.
type sparse struct {
	schema int32
	zero   float64
	zeroTh float64
	pos    map[int]float64
}

// nativeSum is the native buckets of family in one scrape, summed over its
// series (one per partition leader, say), at the coarsest schema among
// them; ok is false when a series has no native buckets.
func nativeSum(f scrape.Families, family string) (s sparse, ok bool) {
	for _, m := range f.Find(family) {
		h := m.GetHistogram()
		if h == nil || (len(h.GetPositiveSpan()) == 0 && h.GetZeroCount() == 0 && h.GetSampleCount() > 0) {
			return sparse{}, false
		}
		s, ok = s.add(fromDTO(h), 1), true
	}
	return s, ok
}

// fromDTO decodes a histogram's spans and deltas.
func fromDTO(h *dto.Histogram) sparse {
	s := sparse{schema: h.GetSchema(), zero: float64(h.GetZeroCount()), zeroTh: h.GetZeroThreshold(), pos: map[int]float64{}}
	idx, k, count := 0, 0, int64(0)
	for _, span := range h.GetPositiveSpan() {
		idx += int(span.GetOffset())
		for range span.GetLength() {
			count += h.GetPositiveDelta()[k]
			k++
			s.pos[idx] = float64(count)
			idx++
		}
	}
	return s
}

// at is s at a schema no finer than its own: each bucket merged into the
// one holding it.
func (s sparse) at(schema int32) sparse {
	if schema >= s.schema {
		return s
	}
	d := s.schema - schema
	out := sparse{schema: schema, zero: s.zero, zeroTh: s.zeroTh, pos: map[int]float64{}}
	for i, n := range s.pos {
		out.pos[((i-1)>>d)+1] += n
	}
	return out
}

// add is s plus sign × o, at the coarser schema of the two; the zero
// value of sparse is empty and takes o's schema.
func (s sparse) add(o sparse, sign float64) sparse {
	if s.pos == nil {
		s = sparse{schema: o.schema, zeroTh: o.zeroTh, pos: map[int]float64{}}
	}
	schema := min(s.schema, o.schema)
	a, b := s.at(schema), o.at(schema)
	out := sparse{schema: schema, zero: a.zero + sign*b.zero, zeroTh: max(a.zeroTh, b.zeroTh), pos: map[int]float64{}}
	for i, n := range a.pos {
		out.pos[i] += n
	}
	for i, n := range b.pos {
		out.pos[i] += sign * n
	}
	return out
}

// count is the number of observations.
func (s sparse) count() float64 {
	n := s.zero
	for _, c := range s.pos {
		n += c
	}
	return n
}

// quantile is the upper bound of the bucket holding the q-quantile (the
// zero bucket's threshold when it holds it): within one bucket's width
// (about 9 % at the exporter's bucket factor of 1.1) above the true value.
// NaN for no observations.
func (s sparse) quantile(q float64) float64 {
	total := s.count()
	if total <= 0 {
		return math.NaN()
	}
	seen := s.zero
	if seen >= q*total {
		return s.zeroTh
	}
	idx := make([]int, 0, len(s.pos))
	for i := range s.pos {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	base := math.Exp2(math.Exp2(-float64(s.schema)))
	for _, i := range idx {
		seen += s.pos[i]
		if seen >= q*total {
			return math.Pow(base, float64(i))
		}
	}
	return math.Pow(base, float64(idx[len(idx)-1]))
}
