package collector

import (
	"context"
	"errors"

	"github.com/shirou/gopsutil/v4/cpu"
	"github.com/shirou/gopsutil/v4/disk"
	"github.com/shirou/gopsutil/v4/mem"
	"github.com/shirou/gopsutil/v4/net"
)

// hostSource is the subset of gopsutil the host collector reads, so tests
// can substitute fixed data. Every call reads current kernel counters; none
// sleeps or keeps state between calls (which rules out cpu.Percent).
type hostSource interface {
	cpuTimes(ctx context.Context) (cpu.TimesStat, error) // all CPUs summed, seconds
	cpuCount(ctx context.Context) (int, error)           // logical CPUs
	memory(ctx context.Context) (*mem.VirtualMemoryStat, error)
	diskIO(ctx context.Context) (map[string]disk.IOCountersStat, error)
	netIO(ctx context.Context) ([]net.IOCountersStat, error) // per interface
}

type gopsutilSource struct{}

func (gopsutilSource) cpuTimes(ctx context.Context) (cpu.TimesStat, error) {
	ts, err := cpu.TimesWithContext(ctx, false)
	if err != nil {
		return cpu.TimesStat{}, err
	}
	if len(ts) == 0 {
		return cpu.TimesStat{}, errors.New("no aggregate cpu times")
	}
	return ts[0], nil
}

func (gopsutilSource) cpuCount(ctx context.Context) (int, error) {
	return cpu.CountsWithContext(ctx, true)
}

func (gopsutilSource) memory(ctx context.Context) (*mem.VirtualMemoryStat, error) {
	return mem.VirtualMemoryWithContext(ctx)
}

func (gopsutilSource) diskIO(ctx context.Context) (map[string]disk.IOCountersStat, error) {
	return disk.IOCountersWithContext(ctx)
}

func (gopsutilSource) netIO(ctx context.Context) ([]net.IOCountersStat, error) {
	return net.IOCountersWithContext(ctx, true)
}
