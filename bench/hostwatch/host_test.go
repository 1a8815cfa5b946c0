package hostwatch

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/kafka-bench/kafka_bench_exporter/bench/result"
	"github.com/kafka-bench/kafka_bench_exporter/config"
)

func readFamilies(t *testing.T, path string) families {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = fh.Close() }() // opened for reading: nothing to lose
	p := expfmt.NewTextParser(model.UTF8Validation)
	f, err := p.TextToMetricFamilies(fh)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestDialects: node_exporter's and this exporter's metrics of the same
// machine give the same sample, and the default filters count each disk
// once (no partitions, no device-mapper volumes) and skip docker0.
func TestDialects(t *testing.T) {
	disks, ifaces := regexp.MustCompile(config.DefaultDisks), regexp.MustCompile(config.DefaultInterfaces)
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for file, want := range map[string]string{"node_exporter.prom": "node_exporter", "kafka_bench_host.prom": "kafka_bench_exporter"} {
		t.Run(file, func(t *testing.T) {
			f := readFamilies(t, "testdata/hosts/"+file)
			d, err := detect(f)
			if err != nil || d.name != want {
				t.Fatalf("detect = %q, %v; want %s", d.name, err, want)
			}
			s, err := d.sample(f, at, disks, ifaces)
			if err != nil {
				t.Fatal(err)
			}
			checks := []struct {
				name      string
				got, want float64
			}{
				{"cpu total", s.CPUTotal, 2000},
				{"cpu busy (not idle, not iowait)", s.CPUBusy, 130},
				{"mem total", s.MemTotal, 8e9},
				{"mem available", s.MemAvailable, 6e9},
				{"disk read: nvme0n1 + sda", s.DiskRead, 110 * result.MiB},
				{"disk written: nvme0n1 only", s.DiskWritten, 200 * result.MiB},
				{"net in: eth0 + lo", s.NetRecv, 31 * result.MiB},
				{"net out: eth0 + lo", s.NetSent, 11 * result.MiB},
				{"devices", float64(len(s.DiskIOTime)), 2},
				{"nvme0n1 io time", s.DiskIOTime["nvme0n1"], 100},
			}
			for _, c := range checks {
				if c.got != c.want {
					t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
				}
			}
		})
	}
	if _, err := detect(families{}); err == nil || !strings.Contains(err.Error(), "serves neither node_exporter's node_cpu_seconds_total nor kafka_bench_exporter's kafka_bench_host_cpu_seconds_total") {
		t.Errorf("detect(nothing) = %v", err)
	}
}

// TestHostRow: averages over the window, the peak CPU of the busiest
// interval, the busiest disk, and counters that went backwards give 0.
func TestHostRow(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	sample := func(sec, busy, total, avail, io, read, recv float64) hostSample {
		return hostSample{At: t0.Add(time.Duration(sec * float64(time.Second))), CPUBusy: busy, CPUTotal: total,
			MemTotal: 100, MemAvailable: avail, DiskIOTime: map[string]float64{"sda": io, "sdb": 0},
			DiskRead: read, NetRecv: recv, NetSent: 50 * result.MiB}
	}
	tr := &hostTrack{src: &Source{Name: "kafka1", Role: "broker", URL: "http://kafka1:9100/metrics"}}
	tr.add(sample(0, 0, 0, 80, 0, 0, 0), nodeExporter, nil)
	tr.add(sample(2, 18, 20, 60, 1, 2*result.MiB, 4*result.MiB), nodeExporter, nil) // 90 % busy
	tr.add(hostSample{}, dialect{}, errors.New("a scrape in between failed"))       // skipped
	tr.add(sample(4, 20, 40, 40, 3, 8*result.MiB, 8*result.MiB), nodeExporter, nil) // 10 % busy
	r := tr.row()
	want := result.HostRow{Name: "kafka1", Role: "broker", URL: "http://kafka1:9100/metrics", Source: "node_exporter",
		CPUPercent: 50, CPUPeakPercent: 90, MemPercent: 40, DiskBusyPercent: 75, DiskReadMBps: 2, NetInMBps: 2}
	if r != want {
		t.Errorf("row = %+v\nwant  %+v", r, want)
	}
	if math.IsNaN(r.NetOutMBps) || r.NetOutMBps != 0 {
		t.Errorf("net out with an unchanged counter = %v, want 0", r.NetOutMBps)
	}
}

// TestHostWatch: a host whose first scrape fails is unreachable for the
// scenario (and not asked again); one whose last scrape fails too, since
// its window has no end; the others are measured.
func TestHostWatch(t *testing.T) {
	ok := readFamilies(t, "testdata/hosts/kafka_bench_host.prom")
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	src := func(name string, fail func(call int) bool) (*Source, *int) {
		calls := new(int)
		return &Source{Name: name, Role: "broker", scrape: func(context.Context) (families, error) {
			*calls++
			if fail(*calls) {
				return nil, errors.New("connection refused")
			}
			return ok, nil
		}, now: func() time.Time { return t0.Add(time.Duration(*calls) * time.Second) }}, calls
	}
	good, _ := src("good", func(int) bool { return false })
	down, downCalls := src("down", func(int) bool { return true })
	lost, _ := src("lost", func(call int) bool { return call > 1 })
	w := Start(context.Background(), []*Source{good, down, lost}, time.Hour)
	rows := w.Stop(context.Background())
	if len(rows) != 3 {
		t.Fatalf("rows = %+v", rows)
	}
	if rows[0].Unreachable() || rows[0].Source != "kafka_bench_exporter" || rows[0].MemPercent != 25 {
		t.Errorf("good host: %+v", rows[0])
	}
	if !rows[1].Unreachable() || rows[1].Err != "connection refused" || *downCalls != 1 {
		t.Errorf("down host: %+v after %d scrapes; want unreachable after 1", rows[1], *downCalls)
	}
	if !rows[2].Unreachable() {
		t.Errorf("host lost at the end: %+v, want unreachable", rows[2])
	}
	if s := OwnStats(rows[1]); !s.Unavailable {
		t.Errorf("OwnStats of an unreachable row = %+v", s)
	}
}

// TestOwnHost reads this machine through the exporter's host collector:
// the values must be plausible.
func TestOwnHost(t *testing.T) {
	src := OwnSource(slog.New(slog.DiscardHandler))
	s, d, err := src.read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if d.name != "kafka_bench_exporter" || s.CPUTotal <= 0 || s.CPUBusy < 0 || s.CPUBusy > s.CPUTotal ||
		s.MemAvailable <= 0 || s.MemAvailable > s.MemTotal || s.NetRecv <= 0 {
		t.Errorf("implausible sample from %s: %+v", d.name, s)
	}
}
