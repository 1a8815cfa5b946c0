// Package hostinfo reads this machine's kernel counters (CPU, memory, disks,
// network): the one reader behind the daemon's host collector and the
// bench's own-host columns. Every call reads current counters; none sleeps
// or keeps state between calls (which rules out cpu.Percent).
package hostinfo

import (
	"context"
	"errors"
	"regexp"
	"slices"

	"github.com/shirou/gopsutil/v4/cpu"
	"github.com/shirou/gopsutil/v4/disk"
	"github.com/shirou/gopsutil/v4/mem"
	"github.com/shirou/gopsutil/v4/net"
)

// Source is the subset of gopsutil the readers use, so tests can
// substitute fixed data.
type Source interface {
	CPUTimes(ctx context.Context) (cpu.TimesStat, error) // all CPUs summed, seconds
	CPUCount(ctx context.Context) (int, error)           // logical CPUs
	Memory(ctx context.Context) (*mem.VirtualMemoryStat, error)
	DiskIO(ctx context.Context) (map[string]disk.IOCountersStat, error)
	NetIO(ctx context.Context) ([]net.IOCountersStat, error) // per interface
}

// Kernel reads the real counters through gopsutil.
type Kernel struct{}

var _ Source = Kernel{}

// CPUTimes returns the times of all CPUs summed.
func (Kernel) CPUTimes(ctx context.Context) (cpu.TimesStat, error) {
	ts, err := cpu.TimesWithContext(ctx, false)
	if err != nil {
		return cpu.TimesStat{}, err
	}
	if len(ts) == 0 {
		return cpu.TimesStat{}, errors.New("no aggregate cpu times")
	}
	return ts[0], nil
}

// CPUCount returns the number of logical CPUs.
func (Kernel) CPUCount(ctx context.Context) (int, error) {
	return cpu.CountsWithContext(ctx, true)
}

// Memory returns the RAM counters.
func (Kernel) Memory(ctx context.Context) (*mem.VirtualMemoryStat, error) {
	return mem.VirtualMemoryWithContext(ctx)
}

// DiskIO returns the counters of every block device, by name.
func (Kernel) DiskIO(ctx context.Context) (map[string]disk.IOCountersStat, error) {
	return disk.IOCountersWithContext(ctx)
}

// NetIO returns the counters of every network interface.
func (Kernel) NetIO(ctx context.Context) ([]net.IOCountersStat, error) {
	return net.IOCountersWithContext(ctx, true)
}

// Mode is the seconds all CPUs spent in one mode.
type Mode struct {
	Name    string
	Seconds float64
}

// Modes splits CPU times into the modes exported (the guest modes are
// already counted in user and nice). Busy is every mode but idle and iowait.
func Modes(t cpu.TimesStat) []Mode {
	return []Mode{{"user", t.User}, {"system", t.System}, {"idle", t.Idle}, {"iowait", t.Iowait},
		{"irq", t.Irq}, {"softirq", t.Softirq}, {"steal", t.Steal}, {"nice", t.Nice}}
}

// Busy reports whether time in mode counts as CPU use.
func (m Mode) Busy() bool { return m.Name != "idle" && m.Name != "iowait" }

// IOTimeSeconds is the time a device spent with I/O in progress (gopsutil
// reports milliseconds).
func IOTimeSeconds(s disk.IOCountersStat) float64 { return float64(s.IoTime) / 1000 }

// SelectDisks keeps the devices filter matches; nil keeps all. Patterns are
// unanchored, as with regexp.MatchString.
func SelectDisks(all map[string]disk.IOCountersStat, filter *regexp.Regexp) map[string]disk.IOCountersStat {
	out := make(map[string]disk.IOCountersStat, len(all))
	for name, s := range all {
		if filter == nil || filter.MatchString(name) {
			out[name] = s
		}
	}
	return out
}

// SelectInterfaces keeps the interfaces filter matches (nil keeps all) and,
// of a repeated name, the first: a series exported twice would fail the
// whole scrape.
func SelectInterfaces(all []net.IOCountersStat, filter *regexp.Regexp) []net.IOCountersStat {
	out := make([]net.IOCountersStat, 0, len(all))
	var seen []string
	for _, s := range all {
		if (filter != nil && !filter.MatchString(s.Name)) || slices.Contains(seen, s.Name) {
			continue
		}
		seen = append(seen, s.Name)
		out = append(out, s)
	}
	return out
}
