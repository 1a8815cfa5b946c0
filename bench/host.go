package bench

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/shirou/gopsutil/v4/cpu"
	"github.com/shirou/gopsutil/v4/mem"
	"github.com/shirou/gopsutil/v4/net"
)

// HostSample is one reading of the load generator's kernel counters.
type HostSample struct {
	At time.Time
	// CPUBusy and CPUTotal are seconds summed over all CPUs.
	CPUBusy, CPUTotal float64
	// MemUsedPercent is (total - available) / total.
	MemUsedPercent float64
	// NetRecv and NetSent are bytes over all interfaces, loopback included
	// (a broker on the same host talks to the bench over it).
	NetRecv, NetSent uint64
}

// HostStats is the load generator during one scenario, as the seeds' per
// machine columns: CPU and memory in percent, network in MB/s (MiB).
type HostStats struct {
	CPUPercent float64
	MemPercent float64 // peak of the samples
	NetInMBps  float64
	NetOutMBps float64
	// Unavailable: the counters could not be read; the columns are empty.
	Unavailable bool
}

// HostReader reads a sample; tests substitute fixed ones.
type HostReader func(ctx context.Context) (HostSample, error)

// ReadHost reads the counters with gopsutil. CPU use comes from deltas of
// cpu.Times between two samples: cpu.Percent would sleep or keep hidden
// state between calls.
func ReadHost(ctx context.Context) (HostSample, error) {
	s := HostSample{At: time.Now()}
	ts, err := cpu.TimesWithContext(ctx, false)
	if err != nil {
		return s, err
	}
	if len(ts) == 0 {
		return s, errors.New("no aggregate cpu times")
	}
	t := ts[0]
	// Guest time is already part of user and nice on Linux.
	s.CPUTotal = t.User + t.System + t.Idle + t.Nice + t.Iowait + t.Irq + t.Softirq + t.Steal
	s.CPUBusy = s.CPUTotal - t.Idle - t.Iowait
	vm, err := mem.VirtualMemoryWithContext(ctx)
	if err != nil {
		return s, err
	}
	if vm.Total > 0 {
		s.MemUsedPercent = 100 * float64(vm.Total-vm.Available) / float64(vm.Total)
	}
	nics, err := net.IOCountersWithContext(ctx, false)
	if err != nil {
		return s, err
	}
	for _, n := range nics {
		s.NetRecv += n.BytesRecv
		s.NetSent += n.BytesSent
	}
	return s, nil
}

// hostWatch follows one scenario: a sample at the start, one at every
// progress tick (for the memory peak) and one at the end.
type hostWatch struct {
	read HostReader

	mu      sync.Mutex
	first   HostSample
	peakMem float64
	err     error
}

func startHostWatch(ctx context.Context, read HostReader) *hostWatch {
	w := &hostWatch{read: read}
	w.first, w.err = read(ctx)
	w.peakMem = w.first.MemUsedPercent
	return w
}

// tick samples memory in the middle of a scenario.
func (w *hostWatch) tick(ctx context.Context) {
	s, err := w.read(ctx)
	w.mu.Lock()
	defer w.mu.Unlock()
	if err == nil {
		w.peakMem = max(w.peakMem, s.MemUsedPercent)
	}
}

// stop takes the last sample and returns the scenario's host stats.
func (w *hostWatch) stop(ctx context.Context) (HostStats, error) {
	last, err := w.read(ctx)
	w.mu.Lock()
	defer w.mu.Unlock()
	if err = errors.Join(w.err, err); err != nil {
		return HostStats{Unavailable: true}, err
	}
	return hostDelta(w.first, last, max(w.peakMem, last.MemUsedPercent)), nil
}

// hostDelta turns two samples into rates; counters that went backwards
// (a wrapped or reset interface) give 0 rather than nonsense.
func hostDelta(a, b HostSample, peakMem float64) HostStats {
	st := HostStats{MemPercent: peakMem}
	if dt := b.CPUTotal - a.CPUTotal; dt > 0 {
		st.CPUPercent = 100 * max(b.CPUBusy-a.CPUBusy, 0) / dt
	}
	if secs := b.At.Sub(a.At).Seconds(); secs > 0 {
		if b.NetRecv >= a.NetRecv {
			st.NetInMBps = float64(b.NetRecv-a.NetRecv) / mib / secs
		}
		if b.NetSent >= a.NetSent {
			st.NetOutMBps = float64(b.NetSent-a.NetSent) / mib / secs
		}
	}
	return st
}

// mib is the perf tools' MB.
const mib = 1024 * 1024
