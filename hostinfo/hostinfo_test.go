package hostinfo

import (
	"context"
	"regexp"
	"slices"
	"testing"

	"github.com/shirou/gopsutil/v4/cpu"
	"github.com/shirou/gopsutil/v4/disk"
	"github.com/shirou/gopsutil/v4/net"
)

func TestSelect(t *testing.T) {
	disks := SelectDisks(map[string]disk.IOCountersStat{"sda": {}, "loop0": {}, "nvme0n1": {}}, regexp.MustCompile("^(sd|nvme)"))
	if len(disks) != 2 {
		t.Errorf("disks %v, want sda and nvme0n1", disks)
	}
	if _, ok := disks["loop0"]; ok {
		t.Errorf("loop0 selected: %v", disks)
	}
	ifaces := SelectInterfaces([]net.IOCountersStat{{Name: "lo"}, {Name: "eth0", BytesRecv: 1}, {Name: "eth0", BytesRecv: 2}}, regexp.MustCompile("^eth"))
	if len(ifaces) != 1 || ifaces[0].BytesRecv != 1 {
		t.Errorf("interfaces %+v, want the first eth0 only", ifaces)
	}
	if n := len(SelectInterfaces([]net.IOCountersStat{{Name: "lo"}, {Name: "eth0"}}, nil)); n != 2 {
		t.Errorf("nil filter kept %d interfaces, want 2", n)
	}
}

func TestModes(t *testing.T) {
	var busy, total float64
	var names []string
	for _, m := range Modes(cpu.TimesStat{User: 1, System: 2, Idle: 4, Iowait: 8, Irq: 16, Softirq: 32, Steal: 64, Nice: 128, Guest: 256}) {
		names = append(names, m.Name)
		total += m.Seconds
		if m.Busy() {
			busy += m.Seconds
		}
	}
	if total != 255 || busy != 243 || !slices.Contains(names, "steal") {
		t.Errorf("modes %v: total %v busy %v; want 255 (guest left out) and 243 (idle, iowait not busy)", names, total, busy)
	}
}

// The kernel reader reads this machine: CPU and memory at least.
func TestKernel(t *testing.T) {
	ctx := context.Background()
	c, err := Kernel{}.CPUTimes(ctx)
	if err != nil || c.User+c.System <= 0 {
		t.Errorf("cpu times %+v, %v", c, err)
	}
	m, err := Kernel{}.Memory(ctx)
	if err != nil || m.Total == 0 || m.Available > m.Total {
		t.Errorf("memory %+v, %v", m, err)
	}
}
