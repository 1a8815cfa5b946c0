// Package hostwatch measures the machines of a bench during each scenario:
// the bench's own host and the hosts its file lists.
package hostwatch

import (
	"context"
	"sync"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/bench/result"
)

// DefaultInterval is how often the hosts are scraped during a scenario,
// besides its start and end, for the peak CPU and the memory average.
const DefaultInterval = 5 * time.Second

// hostTrack follows one machine through a scenario.
type hostTrack struct {
	src         *Source
	first, prev hostSample
	source      dialect
	started     bool  // the first sample was read
	err         error // the first or the last sample failed
	memSum      float64
	memN        int
	peakCPU     float64
}

// add takes a sample in; a failed first sample makes the host unreachable
// for the scenario, a failed one in between is skipped.
func (t *hostTrack) add(s hostSample, d dialect, err error) {
	switch {
	case err != nil && !t.started:
		t.err = err
		return
	case err != nil:
		return
	case !t.started:
		t.first, t.source, t.started = s, d, true
	default:
		t.peakCPU = max(t.peakCPU, cpuPercent(t.prev, s))
	}
	t.prev = s
	if s.MemTotal > 0 {
		t.memSum += 100 * (s.MemTotal - s.MemAvailable) / s.MemTotal
		t.memN++
	}
}

// Watch scrapes every host at a scenario's start, every interval, and
// at its end.
type Watch struct {
	mu     sync.Mutex
	tracks []*hostTrack
	quit   chan struct{}
	wg     sync.WaitGroup
}

// Start scrapes the sources once for the scenario's start and then every
// interval in the background, until Stop (or ctx) ends the scenario.
func Start(ctx context.Context, sources []*Source, interval time.Duration) *Watch {
	w := &Watch{quit: make(chan struct{})}
	for _, s := range sources {
		w.tracks = append(w.tracks, &hostTrack{src: s})
	}
	w.sample(ctx, true)
	w.wg.Go(func() {
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-w.quit:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
				w.sample(ctx, false)
			}
		}
	})
	return w
}

// sample scrapes the hosts concurrently; a host that failed its first
// sample is not asked again.
func (w *Watch) sample(ctx context.Context, last bool) {
	var wg sync.WaitGroup
	for _, t := range w.tracks {
		w.mu.Lock()
		skip := t.err != nil
		w.mu.Unlock()
		if skip {
			continue
		}
		wg.Go(func() {
			s, d, err := t.src.read(ctx)
			w.mu.Lock()
			defer w.mu.Unlock()
			if err != nil && last && t.started {
				t.err = err // the window has no end
				return
			}
			t.add(s, d, err)
		})
	}
	wg.Wait()
}

// Stop takes the last sample of every host and returns their rows, the
// bench's own first.
func (w *Watch) Stop(ctx context.Context) []result.HostRow {
	close(w.quit)
	w.wg.Wait()
	w.sample(ctx, true)
	w.mu.Lock()
	defer w.mu.Unlock()
	rows := make([]result.HostRow, len(w.tracks))
	for i, t := range w.tracks {
		rows[i] = t.row()
	}
	return rows
}

func (t *hostTrack) row() result.HostRow {
	r := result.HostRow{Name: t.src.Name, Role: t.src.Role, URL: t.src.URL}
	switch {
	case t.err != nil:
		r.Err = t.err.Error()
		return r
	case !t.started || !t.prev.At.After(t.first.At):
		r.Err = "fewer than two samples"
		return r
	}
	a, b := t.first, t.prev
	secs := b.At.Sub(a.At).Seconds()
	r.Source = t.source.name
	r.CPUPercent = cpuPercent(a, b)
	r.CPUPeakPercent = max(t.peakCPU, r.CPUPercent)
	if t.memN > 0 {
		r.MemPercent = t.memSum / float64(t.memN)
	}
	for dev, io := range b.DiskIOTime {
		if from, ok := a.DiskIOTime[dev]; ok && io > from {
			d := io - from
			r.DiskBusyPercent = max(r.DiskBusyPercent, min(100*d/secs, 100))
		}
	}
	mbps := func(from, to float64) float64 { return max(to-from, 0) / result.MiB / secs }
	r.DiskReadMBps, r.DiskWriteMBps = mbps(a.DiskRead, b.DiskRead), mbps(a.DiskWritten, b.DiskWritten)
	r.NetInMBps, r.NetOutMBps = mbps(a.NetRecv, b.NetRecv), mbps(a.NetSent, b.NetSent)
	return r
}

// cpuPercent is the busy share of all CPUs between two samples.
func cpuPercent(a, b hostSample) float64 {
	dt := b.CPUTotal - a.CPUTotal
	if dt <= 0 {
		return 0
	}
	return 100 * max(b.CPUBusy-a.CPUBusy, 0) / dt
}

// OwnStats is the main table's host columns, from the bench's own row.
func OwnStats(r result.HostRow) result.HostStats {
	if r.Unreachable() {
		return result.HostStats{Unavailable: true}
	}
	return result.HostStats{CPUPercent: r.CPUPercent, MemPercent: r.MemPercent, NetInMBps: r.NetInMBps, NetOutMBps: r.NetOutMBps}
}
