package exporter

import (
	"context"
	"math"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
)

// The landing page's sparklines: the last liveWindow of each probe, one point
// every liveInterval, from the probes' events (the ring is one of their
// sinks: no Prometheus needed). Memory: probes × 180 points × 6 numbers, and
// per probe two histograms of liveHistBuckets counters.
const (
	liveInterval = 5 * time.Second
	liveWindow   = 15 * time.Minute
)

// livePoint is one probe's numbers over one interval; NaN where unknown (the
// first sample, or no record acknowledged in the interval).
type livePoint struct {
	t                      time.Time
	recordsPerSec          float64
	produceP99, e2eP99     float64 // seconds
	lagRecords, lagSeconds float64
	up                     float64
}

// liveTotals are one probe's cumulative values at a sample.
type liveTotals struct {
	t               time.Time
	produced        float64
	produceHist     *liveHist
	e2eHist         *liveHist
	lagRecords, lag float64
	up              float64
}

// liveRing hears each probe's events (it is a sink, event.Sink), samples
// them every liveInterval and keeps each probe's last points.
type liveRing struct {
	size int

	smu    sync.Mutex
	probes map[string]*liveSink // the running probes, by name

	mu     sync.Mutex
	points map[string][]livePoint // oldest first, at most size
	last   map[string]liveTotals
}

func newLiveRing() *liveRing {
	return &liveRing{size: int(liveWindow / liveInterval), probes: map[string]*liveSink{},
		points: map[string][]livePoint{}, last: map[string]liveTotals{}}
}

var _ event.Sink = (*liveRing)(nil)

// ForProbe implements event.Sink: the probe's numbers, until it stops.
func (r *liveRing) ForProbe(cfg config.Probe) event.Hook {
	s := &liveSink{ring: r, name: cfg.Name}
	r.smu.Lock()
	defer r.smu.Unlock()
	r.probes[cfg.Name] = s
	return s
}

// liveSink is one probe's numbers as the ring samples them: what its
// events added up to so far.
type liveSink struct {
	ring     *liveRing
	name     string
	produced atomic.Uint64
	produce  liveCounts // produce latency
	e2e      liveCounts // end-to-end latency
	// lagRecords and lagSeconds are float64 bits; 0 while unknown.
	lagRecords, lagSeconds atomic.Uint64
	up                     atomic.Bool
}

func (s *liveSink) OnProduced(e event.Produced) {
	s.produced.Add(1)
	s.produce.observe(e.Latency.Seconds())
}

func (s *liveSink) OnConsumed(e event.Consumed) {
	if e.Own {
		s.e2e.observe(e.EndToEnd.Seconds())
	}
}

func (s *liveSink) OnLag(l event.Lag) {
	s.lagRecords.Store(math.Float64bits(l.Records.Value))
	s.lagSeconds.Store(math.Float64bits(l.Seconds.Value))
}

func (s *liveSink) OnUp(up bool) { s.up.Store(up) }

// OnProbeStopped forgets the probe: the next sample drops its points. A
// probe of the same name started meanwhile (a restart) is kept.
func (s *liveSink) OnProbeStopped() {
	s.ring.smu.Lock()
	defer s.ring.smu.Unlock()
	if s.ring.probes[s.name] == s {
		delete(s.ring.probes, s.name)
	}
}

// totals are the probe's cumulative numbers at now.
func (s *liveSink) totals(now time.Time) liveTotals {
	up := 0.0
	if s.up.Load() {
		up = 1
	}
	return liveTotals{t: now, produced: float64(s.produced.Load()), produceHist: s.produce.hist(), e2eHist: s.e2e.hist(),
		lagRecords: math.Float64frombits(s.lagRecords.Load()), lag: math.Float64frombits(s.lagSeconds.Load()), up: up}
}

// run samples every liveInterval until ctx ends.
func (r *liveRing) run(ctx context.Context) {
	t := time.NewTicker(liveInterval)
	defer t.Stop()
	r.sample(time.Now())
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			r.sample(now)
		}
	}
}

// sample appends a point per running probe; probes that are gone (removed
// on reload) are dropped.
func (r *liveRing) sample(now time.Time) {
	cur := map[string]liveTotals{}
	r.smu.Lock()
	for name, s := range r.probes {
		cur[name] = s.totals(now)
	}
	r.smu.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	for probe := range r.points {
		if _, ok := cur[probe]; !ok {
			delete(r.points, probe)
			delete(r.last, probe)
		}
	}
	for probe, c := range cur {
		p := livePoint{t: now, recordsPerSec: math.NaN(), produceP99: math.NaN(), e2eP99: math.NaN(),
			lagRecords: c.lagRecords, lagSeconds: c.lag, up: c.up}
		if prev, ok := r.last[probe]; ok && c.produced >= prev.produced {
			if dt := now.Sub(prev.t).Seconds(); dt > 0 {
				p.recordsPerSec = (c.produced - prev.produced) / dt
			}
			p.produceP99 = c.produceHist.quantileSince(0.99, prev.produceHist)
			p.e2eP99 = c.e2eHist.quantileSince(0.99, prev.e2eHist)
		}
		r.last[probe] = c
		pts := append(r.points[probe], p)
		if len(pts) > r.size {
			pts = pts[len(pts)-r.size:]
		}
		r.points[probe] = pts
	}
}

// liveProbe is one probe's sparklines, as the landing page reads them:
// columns of equal length, null where unknown.
type liveProbe struct {
	Name          string     `json:"name"`
	Time          []int64    `json:"t"`
	RecordsPerSec []*float64 `json:"records_per_sec"`
	ProduceP99MS  []*float64 `json:"produce_p99_ms"`
	E2EP99MS      []*float64 `json:"end_to_end_p99_ms"`
	LagRecords    []*float64 `json:"lag_records"`
	LagSeconds    []*float64 `json:"lag_seconds"`
	Up            []*float64 `json:"up"`
}

type liveData struct {
	IntervalSeconds float64     `json:"interval_seconds"`
	WindowSeconds   float64     `json:"window_seconds"`
	Probes          []liveProbe `json:"probes"`
}

// snapshot is the ring's content, probes by name.
func (r *liveRing) snapshot() liveData {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := liveData{IntervalSeconds: liveInterval.Seconds(), WindowSeconds: liveWindow.Seconds(), Probes: []liveProbe{}}
	for name, pts := range r.points {
		lp := liveProbe{Name: name}
		for _, p := range pts {
			lp.Time = append(lp.Time, p.t.Unix())
			lp.RecordsPerSec = append(lp.RecordsPerSec, finite(p.recordsPerSec, 1))
			lp.ProduceP99MS = append(lp.ProduceP99MS, finite(p.produceP99, 1000))
			lp.E2EP99MS = append(lp.E2EP99MS, finite(p.e2eP99, 1000))
			lp.LagRecords = append(lp.LagRecords, finite(p.lagRecords, 1))
			lp.LagSeconds = append(lp.LagSeconds, finite(p.lagSeconds, 1))
			lp.Up = append(lp.Up, finite(p.up, 1))
		}
		out.Probes = append(out.Probes, lp)
	}
	sort.Slice(out.Probes, func(i, j int) bool { return out.Probes[i].Name < out.Probes[j].Name })
	return out
}

// finite is v·scale, or nil (JSON null) when v is NaN or infinite.
func finite(v, scale float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	v *= scale
	return &v
}
