package hostwatch

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/hostinfo"
	"github.com/kafka-bench/kafka_bench_exporter/redact"
)

// ScrapeTimeout bounds one scrape of a host, so an unreachable host
// delays a scenario's start and end by at most this.
const ScrapeTimeout = 3 * time.Second

// families is one scrape, by metric family name.
type families map[string]*dto.MetricFamily

// dialect names the metrics of one kind of host endpoint.
type dialect struct {
	name                              string // shown in the source column
	cpu, memTotal, memAvailable       string
	diskRead, diskWritten, diskIOTime string
	netRecv, netSent                  string
	diskLabel, netLabel               string
}

// The two endpoints a host may serve: Prometheus' node_exporter, and this
// exporter's host collector, whose names package hostinfo holds; the
// bench's own host is read directly (package hostinfo) and named like the latter.
var (
	nodeExporter = dialect{name: "node_exporter",
		cpu: "node_cpu_seconds_total", memTotal: "node_memory_MemTotal_bytes", memAvailable: "node_memory_MemAvailable_bytes",
		diskRead: "node_disk_read_bytes_total", diskWritten: "node_disk_written_bytes_total", diskIOTime: "node_disk_io_time_seconds_total",
		netRecv: "node_network_receive_bytes_total", netSent: "node_network_transmit_bytes_total",
		diskLabel: "device", netLabel: "device"}
	benchExporter = dialect{name: "kafka_bench_exporter",
		cpu: hostinfo.CPUSecondsMetric, memTotal: hostinfo.MemoryTotalMetric, memAvailable: hostinfo.MemoryAvailableMetric,
		diskRead: hostinfo.DiskReadMetric, diskWritten: hostinfo.DiskWrittenMetric, diskIOTime: hostinfo.DiskIOTimeMetric,
		netRecv: hostinfo.NetworkReceiveMetric, netSent: hostinfo.NetworkTransmitMetric,
		diskLabel: hostinfo.DiskLabel, netLabel: hostinfo.NetworkLabel}
)

// detect tells the dialect from what the endpoint serves.
func detect(f families) (dialect, error) {
	switch {
	case f[nodeExporter.cpu] != nil:
		return nodeExporter, nil
	case f[benchExporter.cpu] != nil:
		return benchExporter, nil
	}
	return dialect{}, fmt.Errorf("serves neither node_exporter's %s nor kafka_bench_exporter's %s", nodeExporter.cpu, benchExporter.cpu)
}

// hostSample is one reading of a machine's kernel counters.
type hostSample struct {
	At time.Time
	// CPUBusy and CPUTotal are seconds summed over all CPUs; busy is all
	// but idle and iowait.
	CPUBusy, CPUTotal      float64
	MemTotal, MemAvailable float64
	// DiskIOTime is per selected device: seconds with IO in progress.
	DiskIOTime            map[string]float64
	DiskRead, DiskWritten float64 // bytes, summed over selected devices
	NetRecv, NetSent      float64 // bytes, summed over selected interfaces
}

// sample reads the counters of dialect d out of one scrape, keeping the
// devices and interfaces the filters select.
func (d dialect) sample(f families, at time.Time, disks, ifaces *regexp.Regexp) (hostSample, error) {
	s := hostSample{At: at, DiskIOTime: map[string]float64{}}
	each(f[d.cpu], "", nil, func(_ string, v float64, m *dto.Metric) {
		s.CPUTotal += v
		if mode := label(m, "mode"); mode != "idle" && mode != "iowait" {
			s.CPUBusy += v
		}
	})
	each(f[d.memTotal], "", nil, func(_ string, v float64, _ *dto.Metric) { s.MemTotal += v })
	each(f[d.memAvailable], "", nil, func(_ string, v float64, _ *dto.Metric) { s.MemAvailable += v })
	each(f[d.diskRead], d.diskLabel, disks, func(_ string, v float64, _ *dto.Metric) { s.DiskRead += v })
	each(f[d.diskWritten], d.diskLabel, disks, func(_ string, v float64, _ *dto.Metric) { s.DiskWritten += v })
	each(f[d.diskIOTime], d.diskLabel, disks, func(dev string, v float64, _ *dto.Metric) { s.DiskIOTime[dev] += v })
	each(f[d.netRecv], d.netLabel, ifaces, func(_ string, v float64, _ *dto.Metric) { s.NetRecv += v })
	each(f[d.netSent], d.netLabel, ifaces, func(_ string, v float64, _ *dto.Metric) { s.NetSent += v })
	if s.CPUTotal <= 0 || s.MemTotal <= 0 {
		return s, fmt.Errorf("%s: no CPU or memory counters in the scrape", d.name)
	}
	return s, nil
}

// each calls fn for every series of mf whose label key (when given) the
// filter selects.
func each(mf *dto.MetricFamily, key string, filter *regexp.Regexp, fn func(value string, v float64, m *dto.Metric)) {
	for _, m := range mf.GetMetric() {
		lv := label(m, key)
		if key != "" && filter != nil && !filter.MatchString(lv) {
			continue
		}
		v := m.GetCounter().GetValue()
		if m.Gauge != nil {
			v = m.GetGauge().GetValue()
		} else if m.Untyped != nil {
			v = m.GetUntyped().GetValue()
		}
		fn(lv, v, m)
	}
}

func label(m *dto.Metric, name string) string {
	for _, lp := range m.GetLabel() {
		if lp.GetName() == name {
			return lp.GetValue()
		}
	}
	return ""
}

// Source is one machine the bench measures.
type Source struct {
	spec.HostEntry
	disks, ifaces *regexp.Regexp
	// scrape returns a remote machine's metrics.
	scrape func(ctx context.Context) (families, error)
	// local, set instead of scrape, reads this machine's counters.
	local  hostinfo.Source
	logger *slog.Logger
	// now stamps the samples; nil is time.Now (tests step a clock).
	now func() time.Time
}

// read scrapes the source and turns the scrape into a sample.
func (h *Source) read(ctx context.Context) (hostSample, dialect, error) {
	ctx, cancel := context.WithTimeout(ctx, ScrapeTimeout)
	defer cancel()
	if h.local != nil {
		s, err := h.localSample(ctx)
		return s, benchExporter, err
	}
	f, err := h.scrape(ctx)
	at := h.stamp()
	if err != nil {
		return hostSample{}, dialect{}, err
	}
	d, err := detect(f)
	if err != nil {
		return hostSample{}, d, err
	}
	s, err := d.sample(f, at, h.disks, h.ifaces)
	return s, d, err
}

func (h *Source) stamp() time.Time {
	if h.now != nil {
		return h.now()
	}
	return time.Now()
}

// NewSource reads a remote /metrics endpoint. The entry is validated,
// so its regexps compile. Only the scrape sees the URL as written: the
// source's own copy, which rows, results, logs and errors show, has its
// credentials redacted (redact.URL).
func NewSource(e spec.HostEntry, client *http.Client) *Source {
	raw := e.URL
	e.URL = redact.URL(raw)
	return &Source{HostEntry: e, disks: regexp.MustCompile(e.Disks), ifaces: regexp.MustCompile(e.Interfaces),
		scrape: func(ctx context.Context) (families, error) { return scrapeURL(ctx, client, raw) }}
}

// scrapeURL reads one endpoint; its errors never show the URL's
// credentials (net/http quotes a user without a password whole).
func scrapeURL(ctx context.Context, client *http.Client, url string) (families, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, redact.Error(err)
	}
	req.Header.Set("Accept", string(expfmt.NewFormat(expfmt.TypeTextPlain)))
	resp, err := client.Do(req)
	if err != nil {
		return nil, redact.Error(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil, fmt.Errorf("GET %s: %s", redact.URL(url), resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	return p.TextToMetricFamilies(resp.Body)
}

// OwnSource reads the bench's own machine through package hostinfo,
// the reader behind the daemon's host collector, with the default filters;
// its rows name this exporter as their source.
func OwnSource(logger *slog.Logger) *Source {
	e := spec.HostEntry{Name: spec.OwnHostName, Role: "bench", Disks: config.DefaultDisks, Interfaces: config.DefaultInterfaces}
	return &Source{HostEntry: e, disks: regexp.MustCompile(e.Disks), ifaces: regexp.MustCompile(e.Interfaces),
		local: hostinfo.Kernel{}, logger: logger}
}

// localSample reads the counters of this machine directly: the values the
// host collector exports, without a registry in between. CPU and memory are
// required; a disk or network section that cannot be read is logged and
// left at zero, as the collector leaves it out.
func (h *Source) localSample(ctx context.Context) (hostSample, error) {
	s := hostSample{DiskIOTime: map[string]float64{}}
	t, err := h.local.CPUTimes(ctx)
	if err != nil {
		return s, fmt.Errorf("%s: cpu times: %w", benchExporter.name, err)
	}
	for _, m := range hostinfo.Modes(t) {
		s.CPUTotal += m.Seconds
		if m.Busy() {
			s.CPUBusy += m.Seconds
		}
	}
	mem, err := h.local.Memory(ctx)
	if err != nil {
		return s, fmt.Errorf("%s: memory: %w", benchExporter.name, err)
	}
	s.MemTotal, s.MemAvailable = float64(mem.Total), float64(mem.Available)
	if disks, err := h.local.DiskIO(ctx); err != nil {
		h.logger.Warn("reading the disk counters failed", "host", h.Name, "err", err)
	} else {
		for dev, d := range hostinfo.SelectDisks(disks, h.disks) {
			s.DiskRead += float64(d.ReadBytes)
			s.DiskWritten += float64(d.WriteBytes)
			s.DiskIOTime[dev] += hostinfo.IOTimeSeconds(d)
		}
	}
	if ifaces, err := h.local.NetIO(ctx); err != nil {
		h.logger.Warn("reading the network counters failed", "host", h.Name, "err", err)
	} else {
		for _, n := range hostinfo.SelectInterfaces(ifaces, h.ifaces) {
			s.NetRecv += float64(n.BytesRecv)
			s.NetSent += float64(n.BytesSent)
		}
	}
	s.At = h.stamp() // after reading, as a scrape is stamped
	s.At = h.stamp() // after reading, as a scrape is stamped
	if s.CPUTotal <= 0 || s.MemTotal <= 0 {
		return s, fmt.Errorf("%s: no CPU or memory counters in the scrape", benchExporter.name)
	}
	return s, nil
}
