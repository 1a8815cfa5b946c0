package probes

import (
	"math/bits"
	"sort"
	"sync"
	"sync/atomic"
)

// maxSamples bounds the (offset, time) samples kept per partition.
const maxSamples = 256

// produceTimes remembers, per partition, when records at some offsets were
// intended to be sent, so that lag in records can be turned into lag in
// seconds by interpolation (as kafka-lag-exporter does). Memory is bounded:
// when a partition's samples are full, every second one is dropped and the
// sampling spacing doubles, so the history stays whole at a coarser grain.
type produceTimes struct {
	mu    sync.Mutex
	parts map[int32]*samples
}

type samples struct {
	offsets []int64
	times   []int64 // unix ns
	spacing int64   // minimum offset distance between samples
	// gen changes with every change of the samples (add keeping one,
	// prune, reset), so a sampleCache knows its window is stale. Changed
	// under produceTimes.mu, read without it.
	gen atomic.Uint64
}

func newProduceTimes() *produceTimes { return &produceTimes{parts: map[int32]*samples{}} }

// add records that the record at offset was intended at t (unix ns). It
// returns the partition's skip window after it, [last, next): the offsets
// an add keeps no sample of while the samples' generation is still gen.
func (pt *produceTimes) add(partition int32, offset, t int64) (last, next int64, s *samples, gen uint64) {
	pt.mu.Lock()
	defer pt.mu.Unlock()
	s = pt.parts[partition]
	if s == nil {
		s = &samples{spacing: 1}
		pt.parts[partition] = s
	}
	n := len(s.offsets)
	if n > 0 {
		last := s.offsets[n-1]
		if offset < last {
			// The topic was recreated (offsets restarted): start over.
			s.offsets, s.times, s.spacing = s.offsets[:0], s.times[:0], 1
		} else if offset-last < s.spacing {
			return last, last + s.spacing, s, s.gen.Load()
		}
	}
	if len(s.offsets) == maxSamples {
		s.compact()
	}
	s.offsets = append(s.offsets, offset)
	s.times = append(s.times, t)
	return offset, offset + s.spacing, s, s.gen.Add(1)
}

// sampleCache is one adder's copy of the skip windows add returns, by
// partition: most acknowledged records fall inside their partition's window
// (one sample is kept per spacing offsets), and those skip add's lock and
// map lookup. Its adds must not run concurrently (the producer's promises,
// which franz-go calls one at a time).
type sampleCache struct {
	wins []sampleWindow
}

type sampleWindow struct {
	last, next int64
	s          *samples // nil: none yet
	gen        uint64   // s's when the window was given
}

// maxCachedPartitions bounds the windows a sampleCache keeps.
const maxCachedPartitions = 1 << 16

// add is pt.add, skipped when the record falls inside the window add gave
// last for its partition and nothing changed the samples since (gen): then
// pt.add would have kept nothing either.
func (c *sampleCache) add(pt *produceTimes, partition int32, offset, t int64) {
	if partition >= 0 && int(partition) < len(c.wins) {
		if w := &c.wins[partition]; offset >= w.last && offset < w.next && w.s != nil && w.gen == w.s.gen.Load() {
			return
		}
	}
	last, next, s, gen := pt.add(partition, offset, t)
	if partition < 0 || partition >= maxCachedPartitions {
		return
	}
	for int(partition) >= len(c.wins) {
		c.wins = append(c.wins, sampleWindow{})
	}
	c.wins[partition] = sampleWindow{last: last, next: next, s: s, gen: gen}
}

func (s *samples) compact() {
	j := 0
	for i := 0; i < len(s.offsets); i += 2 {
		s.offsets[j], s.times[j] = s.offsets[i], s.times[i]
		j++
	}
	s.offsets, s.times = s.offsets[:j], s.times[:j]
	s.spacing *= 2
}

// timeOf estimates when the record at offset was intended to be sent, in
// unix ns; ok is false when nothing is known about the partition.
func (pt *produceTimes) timeOf(partition int32, offset int64) (t int64, ok bool) {
	pt.mu.Lock()
	defer pt.mu.Unlock()
	s := pt.parts[partition]
	if s == nil || len(s.offsets) == 0 {
		return 0, false
	}
	i := sort.Search(len(s.offsets), func(i int) bool { return s.offsets[i] >= offset })
	switch {
	case i == len(s.offsets):
		// Newer than the last sample: at least as young as that sample.
		return s.times[i-1], true
	case s.offsets[i] == offset || i == 0:
		// Exact, or older than all samples: the oldest known time is a
		// lower bound of the age.
		return s.times[i], true
	}
	o0, o1 := s.offsets[i-1], s.offsets[i]
	t0, t1 := s.times[i-1], s.times[i]
	return t0 + scale(t1-t0, uint64(offset-o0), uint64(o1-o0)), true
}

// scale is d*num/den, truncated toward zero, for 0 <= num < den: the
// product is taken in 128 bits, as a long backlog (days of nanoseconds
// times billions of offsets) overflows 64. The result is smaller than |d|
// in magnitude, so it fits.
func scale(d int64, num, den uint64) int64 {
	neg := d < 0
	mag := uint64(d)
	if neg {
		mag = -mag // two's complement: also right for math.MinInt64
	}
	hi, lo := bits.Mul64(mag, num)
	q, _ := bits.Div64(hi, lo, den) // hi < den as num < den
	if neg {
		return -int64(q)
	}
	return int64(q)
}

// reset forgets every partition (the topic was recreated).
func (pt *produceTimes) reset() {
	pt.mu.Lock()
	defer pt.mu.Unlock()
	for _, s := range pt.parts {
		s.gen.Add(1)
	}
	clear(pt.parts)
}

// prune drops samples the group has consumed past (keeping one before the
// committed offset for interpolation) and restores finer spacing once there
// is room again, so a caught-up probe keeps a fine-grained history.
func (pt *produceTimes) prune(partition int32, committed int64) {
	pt.mu.Lock()
	defer pt.mu.Unlock()
	s := pt.parts[partition]
	if s == nil {
		return
	}
	i := sort.Search(len(s.offsets), func(i int) bool { return s.offsets[i] >= committed })
	if i > 1 {
		n := copy(s.offsets, s.offsets[i-1:])
		copy(s.times, s.times[i-1:])
		s.offsets, s.times = s.offsets[:n], s.times[:n]
	}
	for s.spacing > 1 && len(s.offsets) < maxSamples/4 {
		s.spacing /= 2
	}
	s.gen.Add(1)
}
