package exporter

import (
	"context"
	"math"
	"sort"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// The landing page's sparklines: the last liveWindow of each probe, one point
// every liveInterval, read from the exporter's own registry (no Prometheus
// needed). Memory: probes × 180 points × 6 numbers.
const (
	liveInterval = 5 * time.Second
	liveWindow   = 15 * time.Minute
)

// The series the ring reads, by metric name.
const (
	liveProduced   = "kafka_bench_produced_records_total"
	liveProduceLat = "kafka_bench_produce_latency_seconds"
	liveE2ELat     = "kafka_bench_end_to_end_latency_seconds"
	liveLagRecords = "kafka_bench_consumer_lag_records"
	liveLagSeconds = "kafka_bench_consumer_lag_seconds"
	liveUp         = "kafka_bench_probe_up"
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

// liveRing samples the registry and keeps each probe's last points.
type liveRing struct {
	gather prometheus.Gatherer
	size   int

	mu     sync.Mutex
	points map[string][]livePoint // oldest first, at most size
	last   map[string]liveTotals
}

func newLiveRing(g prometheus.Gatherer) *liveRing {
	return &liveRing{gather: g, size: int(liveWindow / liveInterval),
		points: map[string][]livePoint{}, last: map[string]liveTotals{}}
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

// sample reads the registry once and appends a point per probe; probes that
// are gone (removed on reload) are dropped.
func (r *liveRing) sample(now time.Time) {
	mfs, err := r.gather.Gather()
	if err != nil && len(mfs) == 0 {
		return // a collector error alone still leaves the probe families
	}
	cur := map[string]*liveTotals{}
	get := func(probe string) *liveTotals {
		if cur[probe] == nil {
			cur[probe] = &liveTotals{t: now, produceHist: newLiveHist(), e2eHist: newLiveHist()}
		}
		return cur[probe]
	}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			probe := labelValue(m, "probe")
			if probe == "" {
				continue
			}
			switch mf.GetName() {
			case liveProduced:
				get(probe).produced += m.GetCounter().GetValue()
			case liveProduceLat:
				get(probe).produceHist.add(m.GetHistogram())
			case liveE2ELat:
				get(probe).e2eHist.add(m.GetHistogram())
			case liveLagRecords:
				get(probe).lagRecords = m.GetGauge().GetValue()
			case liveLagSeconds:
				get(probe).lag = m.GetGauge().GetValue()
			case liveUp:
				get(probe).up = m.GetGauge().GetValue()
			}
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for probe := range r.points {
		if cur[probe] == nil {
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
		r.last[probe] = *c
		pts := append(r.points[probe], p)
		if len(pts) > r.size {
			pts = pts[len(pts)-r.size:]
		}
		r.points[probe] = pts
	}
}

func labelValue(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
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

// bothRegisterers registers collectors on two registries: the exporter's,
// served on /metrics, and the ring's, which it gathers every liveInterval
// without the collectors it does not read.
type bothRegisterers [2]prometheus.Registerer

func (b bothRegisterers) Register(c prometheus.Collector) error {
	if err := b[0].Register(c); err != nil {
		return err
	}
	if err := b[1].Register(c); err != nil {
		b[0].Unregister(c)
		return err
	}
	return nil
}

func (b bothRegisterers) MustRegister(cs ...prometheus.Collector) {
	for _, c := range cs {
		if err := b.Register(c); err != nil {
			panic(err)
		}
	}
}

func (b bothRegisterers) Unregister(c prometheus.Collector) bool {
	ok := b[0].Unregister(c)
	return b[1].Unregister(c) && ok
}
