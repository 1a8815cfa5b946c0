package collector

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/shirou/gopsutil/v4/cpu"
	"github.com/shirou/gopsutil/v4/disk"
	"github.com/shirou/gopsutil/v4/mem"
	"github.com/shirou/gopsutil/v4/net"
)

var update = flag.Bool("update", false, "rewrite testdata/host.prom from the fake source")

const golden = "testdata/host.prom"

// fakeSource returns fixed counters; a non-nil err field fails that section.
type fakeSource struct {
	cpuErr, memErr, diskErr, netErr error
}

func (f fakeSource) CPUTimes(context.Context) (cpu.TimesStat, error) {
	return cpu.TimesStat{CPU: "cpu-total", User: 1000.5, System: 200.25, Idle: 50000, Nice: 3,
		Iowait: 40.5, Irq: 1.5, Softirq: 12, Steal: 0.75, Guest: 99}, f.cpuErr
}

func (f fakeSource) CPUCount(context.Context) (int, error) { return 8, f.cpuErr }

func (f fakeSource) Memory(context.Context) (*mem.VirtualMemoryStat, error) {
	if f.memErr != nil {
		return nil, f.memErr
	}
	return &mem.VirtualMemoryStat{Total: 16 << 30, Available: 10 << 30, Used: 6 << 30}, nil
}

func (f fakeSource) DiskIO(context.Context) (map[string]disk.IOCountersStat, error) {
	if f.diskErr != nil {
		return nil, f.diskErr
	}
	return map[string]disk.IOCountersStat{
		"nvme0n1": {Name: "nvme0n1", ReadBytes: 1 << 30, WriteBytes: 2 << 30, ReadCount: 1000, WriteCount: 2000, IoTime: 12345},
		"sda":     {Name: "sda", ReadBytes: 4096, WriteBytes: 8192, ReadCount: 1, WriteCount: 2, IoTime: 7},
		"loop0":   {Name: "loop0", ReadBytes: 512, ReadCount: 1, IoTime: 1},
	}, nil
}

func (f fakeSource) NetIO(context.Context) ([]net.IOCountersStat, error) {
	if f.netErr != nil {
		return nil, f.netErr
	}
	return []net.IOCountersStat{
		{Name: "lo", BytesRecv: 100, BytesSent: 100, PacketsRecv: 1, PacketsSent: 1},
		{Name: "eth0", BytesRecv: 5e9, BytesSent: 3e9, PacketsRecv: 4e6, PacketsSent: 3e6, Errin: 2, Errout: 1, Dropin: 9},
		{Name: "docker0", BytesRecv: 10, BytesSent: 20, PacketsRecv: 3, PacketsSent: 4},
	}, nil
}

// promCollector adapts a Collector for a pedantic registry, which checks
// every emitted metric against the described ones.
type promCollector struct{ Collector }

func (c promCollector) Describe(ch chan<- *prometheus.Desc) { prometheus.DescribeByCollect(c, ch) }
func (c promCollector) Collect(ch chan<- prometheus.Metric) { _ = c.Update(ch) }

func registry(t *testing.T, c Collector) *prometheus.Registry {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(promCollector{c}); err != nil {
		t.Fatal(err)
	}
	return reg
}

func TestHostGolden(t *testing.T) {
	reg := registry(t, newHost(HostConfig{}, fakeSource{}))
	got := exposition(t, reg)
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Fatalf("exposition differs from %s (rerun with -update if intended); got:\n%s", golden, got)
	}
}

func TestHostGoldenPromtool(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("CI") == "true" || os.Getenv("KAFKA_BENCH_INTEGRATION") == "1" {
			t.Fatal("promtool not on PATH; it is required in CI")
		}
		t.Skip("promtool not on PATH")
	}
	in, err := os.ReadFile(golden)
	if err != nil || len(in) == 0 {
		t.Fatalf("read %s: %v (%d bytes)", golden, err, len(in))
	}
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = bytes.NewReader(in)
	if out, err := cmd.CombinedOutput(); err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Fatalf("promtool check metrics %s: %v\n%s", filepath.Base(golden), err, out)
	}
}

func TestHostFilters(t *testing.T) {
	all := []string{"docker0", "eth0", "lo"}
	tests := []struct {
		name              string
		disks, ifaces     string // "" = nil = all
		wantDisks, wantIf []string
	}{
		{"nil selects all", "", "", []string{"loop0", "nvme0n1", "sda"}, all},
		{"anchored disk", "^(sd|nvme)", "", []string{"nvme0n1", "sda"}, all},
		{"unanchored match", "da", "eth", []string{"sda"}, []string{"eth0"}},
		{"exclude loopback", "", "^[^l]", []string{"loop0", "nvme0n1", "sda"}, []string{"docker0", "eth0"}},
		{"match nothing", "^$", "^$", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var cfg HostConfig
			if tt.disks != "" {
				cfg.Disks = regexp.MustCompile(tt.disks)
			}
			if tt.ifaces != "" {
				cfg.Interfaces = regexp.MustCompile(tt.ifaces)
			}
			mfs, err := registry(t, newHost(cfg, fakeSource{})).Gather()
			if err != nil {
				t.Fatal(err)
			}
			if got := labelValues(mfs, "kafka_bench_host_disk_read_bytes_total", "device"); !slices.Equal(got, tt.wantDisks) {
				t.Errorf("devices = %v, want %v", got, tt.wantDisks)
			}
			if got := labelValues(mfs, "kafka_bench_host_network_transmit_errors_total", "interface"); !slices.Equal(got, tt.wantIf) {
				t.Errorf("interfaces = %v, want %v", got, tt.wantIf)
			}
		})
	}
}

func labelValues(mfs []*dto.MetricFamily, name, label string) []string {
	var vs []string
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, lp := range m.GetLabel() {
				if lp.GetName() == label {
					vs = append(vs, lp.GetValue())
				}
			}
		}
	}
	slices.Sort(vs)
	return vs
}

func TestHostPartialFailure(t *testing.T) {
	c := newHost(HostConfig{}, fakeSource{diskErr: errors.New("no diskstats"), memErr: errors.New("no meminfo")})
	ch := make(chan prometheus.Metric, 100)
	err := c.Update(ch)
	close(ch)
	if err == nil || !strings.Contains(err.Error(), "no diskstats") || !strings.Contains(err.Error(), "no meminfo") {
		t.Fatalf("Update error = %v, want both section errors", err)
	}
	names := map[string]bool{}
	for m := range ch {
		names[m.Desc().String()] = true
	}
	var cpuSeen, netSeen, diskSeen bool
	for d := range names {
		cpuSeen = cpuSeen || strings.Contains(d, "host_cpu_seconds_total")
		netSeen = netSeen || strings.Contains(d, "host_network_receive_bytes_total")
		diskSeen = diskSeen || strings.Contains(d, "host_disk_")
	}
	if !cpuSeen || !netSeen || diskSeen {
		t.Fatalf("cpu=%v net=%v disk=%v; want the working sections only", cpuSeen, netSeen, diskSeen)
	}
}

// TestHostDuplicateInterface guards the whole scrape: a repeated series
// would make Gather fail.
func TestHostDuplicateInterface(t *testing.T) {
	src := dupNetSource{}
	if _, err := registry(t, newHost(HostConfig{}, src)).Gather(); err != nil {
		t.Fatal(err)
	}
}

type dupNetSource struct{ fakeSource }

func (dupNetSource) NetIO(context.Context) ([]net.IOCountersStat, error) {
	return []net.IOCountersStat{{Name: "eth0", BytesRecv: 1}, {Name: "eth0", BytesRecv: 2}}, nil
}

// TestHostReal reads this machine through gopsutil.
func TestHostReal(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	c := NewHost(HostConfig{})
	reg.MustRegister(promCollector{c})
	if err := c.Update(make(chan prometheus.Metric, 10_000)); err != nil {
		t.Fatalf("real source: %v", err)
	}
	first := sample(t, reg)
	time.Sleep(200 * time.Millisecond)
	second := sample(t, reg)

	for _, name := range []string{"kafka_bench_host_cpus", "kafka_bench_host_memory_total_bytes", "kafka_bench_host_memory_available_bytes"} {
		if first[name] <= 0 {
			t.Errorf("%s = %v, want > 0", name, first[name])
		}
	}
	if first["kafka_bench_host_memory_available_bytes"] > first["kafka_bench_host_memory_total_bytes"] {
		t.Error("available memory exceeds total")
	}
	for _, mode := range []string{"user", "system", "idle", "iowait", "irq", "softirq", "steal", "nice"} {
		if _, ok := first[`kafka_bench_host_cpu_seconds_total{mode="`+mode+`"}`]; !ok {
			t.Errorf("no cpu seconds for mode %s", mode)
		}
	}
	if !hasPrefix(first, "kafka_bench_host_network_receive_bytes_total{") {
		t.Error("no network interface exported (lo should always exist)")
	}
	for k, v := range first {
		if !strings.Contains(k, "_total") {
			continue
		}
		// The kernel documents that iowait may decrease (proc(5)).
		if strings.Contains(k, `mode="iowait"`) {
			continue
		}
		if v2, ok := second[k]; ok && v2 < v {
			t.Errorf("counter %s decreased: %v -> %v", k, v, v2)
		}
	}
}

func hasPrefix(m map[string]float64, p string) bool {
	for k := range m {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}

// sample flattens a gather into "name{label="v"}" -> value.
func sample(t *testing.T, g prometheus.Gatherer) map[string]float64 {
	t.Helper()
	mfs, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			key := mf.GetName()
			if lps := m.GetLabel(); len(lps) > 0 {
				key += "{" + lps[0].GetName() + `="` + lps[0].GetValue() + `"}`
			}
			v := m.GetGauge().GetValue()
			if m.Counter != nil {
				v = m.GetCounter().GetValue()
			}
			out[key] = v
		}
	}
	return out
}
