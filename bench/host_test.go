package bench

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestHostDelta(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a := HostSample{At: t0, CPUBusy: 100, CPUTotal: 400, MemUsedPercent: 30, NetRecv: 1 << 30, NetSent: 2 << 30}
	b := HostSample{At: t0.Add(2 * time.Second), CPUBusy: 103, CPUTotal: 404, MemUsedPercent: 35,
		NetRecv: 1<<30 + 20*mib, NetSent: 2<<30 + 4*mib}
	got := hostDelta(a, b, 40)
	want := HostStats{CPUPercent: 75, MemPercent: 40, NetInMBps: 10, NetOutMBps: 2}
	if got != want {
		t.Errorf("hostDelta = %+v, want %+v", got, want)
	}
	// Counters that went backwards (an interface reset) give 0, not a
	// huge unsigned difference.
	b.NetRecv, b.NetSent = 5, 5
	if got := hostDelta(a, b, 40); got.NetInMBps != 0 || got.NetOutMBps != 0 {
		t.Errorf("reset counters: in %v out %v, want 0", got.NetInMBps, got.NetOutMBps)
	}
}

// TestHostWatch: the memory column is the peak of every sample taken
// during the scenario, not the last one.
func TestHostWatch(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	samples := []HostSample{
		{At: t0, CPUBusy: 0, CPUTotal: 10, MemUsedPercent: 20},
		{At: t0.Add(time.Second), CPUBusy: 5, CPUTotal: 20, MemUsedPercent: 60},
		{At: t0.Add(2 * time.Second), CPUBusy: 10, CPUTotal: 30, MemUsedPercent: 25},
	}
	i := 0
	read := func(context.Context) (HostSample, error) { s := samples[i]; i++; return s, nil }
	w := startHostWatch(context.Background(), read)
	w.tick(context.Background())
	got, err := w.stop(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got.MemPercent != 60 || got.CPUPercent != 50 {
		t.Errorf("mem %v cpu %v, want peak 60 and 50", got.MemPercent, got.CPUPercent)
	}

	broken := func(context.Context) (HostSample, error) { return HostSample{}, errors.New("no /proc") }
	if got, err := startHostWatch(context.Background(), broken).stop(context.Background()); err == nil || !got.Unavailable {
		t.Errorf("unreadable counters: %+v, %v; want Unavailable and an error", got, err)
	}
}

// TestReadHost reads this machine's counters: they must be plausible.
func TestReadHost(t *testing.T) {
	s, err := ReadHost(context.Background())
	if err != nil {
		t.Skipf("host counters unavailable here: %v", err)
	}
	if s.CPUTotal <= 0 || s.CPUBusy < 0 || s.CPUBusy > s.CPUTotal || s.MemUsedPercent <= 0 || s.MemUsedPercent > 100 {
		t.Errorf("implausible sample %+v", s)
	}
}
