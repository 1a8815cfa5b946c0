package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/exporter/collector"
)

// hostScrapeTimeout bounds one scrape of a host, so an unreachable host
// delays a scenario's start and end by at most this.
const hostScrapeTimeout = 3 * time.Second

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
// exporter's host collector (exporter/collector/host.go).
var (
	nodeExporter = dialect{name: "node_exporter",
		cpu: "node_cpu_seconds_total", memTotal: "node_memory_MemTotal_bytes", memAvailable: "node_memory_MemAvailable_bytes",
		diskRead: "node_disk_read_bytes_total", diskWritten: "node_disk_written_bytes_total", diskIOTime: "node_disk_io_time_seconds_total",
		netRecv: "node_network_receive_bytes_total", netSent: "node_network_transmit_bytes_total",
		diskLabel: "device", netLabel: "device"}
	benchExporter = dialect{name: "kafka_bench_exporter",
		cpu: "kafka_bench_host_cpu_seconds_total", memTotal: "kafka_bench_host_memory_total_bytes", memAvailable: "kafka_bench_host_memory_available_bytes",
		diskRead: "kafka_bench_host_disk_read_bytes_total", diskWritten: "kafka_bench_host_disk_written_bytes_total", diskIOTime: "kafka_bench_host_disk_io_time_seconds_total",
		netRecv: "kafka_bench_host_network_receive_bytes_total", netSent: "kafka_bench_host_network_transmit_bytes_total",
		diskLabel: "device", netLabel: "interface"}
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

// hostSource is one machine the bench measures.
type hostSource struct {
	HostEntry
	disks, ifaces *regexp.Regexp
	// scrape returns the machine's metrics.
	scrape func(ctx context.Context) (families, error)
	// now stamps the samples; nil is time.Now (tests step a clock).
	now func() time.Time
}

// read scrapes the source and turns the scrape into a sample.
func (h *hostSource) read(ctx context.Context) (hostSample, dialect, error) {
	ctx, cancel := context.WithTimeout(ctx, hostScrapeTimeout)
	defer cancel()
	f, err := h.scrape(ctx)
	at := time.Now()
	if h.now != nil {
		at = h.now()
	}
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

// newHostSource reads a remote /metrics endpoint. The entry is validated,
// so its regexps compile.
func newHostSource(e HostEntry, client *http.Client) *hostSource {
	return &hostSource{HostEntry: e, disks: regexp.MustCompile(e.Disks), ifaces: regexp.MustCompile(e.Interfaces),
		scrape: func(ctx context.Context) (families, error) { return scrapeURL(ctx, client, e.URL) }}
}

func scrapeURL(ctx context.Context, client *http.Client, url string) (families, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", string(expfmt.NewFormat(expfmt.TypeTextPlain)))
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	return p.TextToMetricFamilies(resp.Body)
}

// ownHostSource reads the bench's own machine through the exporter's host
// collector, the same reader the daemon exports, with the default filters.
func ownHostSource(logger *slog.Logger) *hostSource {
	e := HostEntry{Name: OwnHostName, Role: "bench", Disks: config.DefaultDisks, Interfaces: config.DefaultInterfaces}
	disks, ifaces := regexp.MustCompile(e.Disks), regexp.MustCompile(e.Interfaces)
	reg := prometheus.NewRegistry()
	reg.MustRegister(collector.NewSet(logger, map[string]collector.Collector{
		"host": collector.NewHost(collector.HostConfig{Disks: disks, Interfaces: ifaces}),
	}))
	return &hostSource{HostEntry: e, disks: disks, ifaces: ifaces, scrape: func(context.Context) (families, error) {
		mfs, err := reg.Gather()
		f := families{}
		for _, mf := range mfs {
			f[mf.GetName()] = mf
		}
		if len(f) == 0 {
			return nil, errors.Join(errors.New("host collector returned nothing"), err)
		}
		return f, nil
	}}
}
