package collector

import (
	"context"
	"errors"
	"fmt"
	"regexp"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kafka-bench/kafka_bench_exporter/hostinfo"
)

// HostConfig selects which block devices and network interfaces are
// exported. A nil regexp selects all; patterns are unanchored, as with
// regexp.MatchString.
type HostConfig struct {
	Disks, Interfaces *regexp.Regexp
}

type hostCollector struct {
	cfg HostConfig
	src hostinfo.Source

	cpuSeconds, cpus                                         *prometheus.Desc
	memTotal, memAvailable                                   *prometheus.Desc
	diskRead, diskWritten, diskReads, diskWrites, diskIOTime *prometheus.Desc
	netRxBytes, netTxBytes, netRxPkts, netTxPkts             *prometheus.Desc
	netRxErrs, netTxErrs                                     *prometheus.Desc
}

// NewHost returns a collector of host CPU, memory, disk and network counters
// read from the kernel (package hostinfo) at every scrape. Only raw counters are exported: rate
// them in PromQL.
func NewHost(cfg HostConfig) Collector { return newHost(cfg, hostinfo.Kernel{}) }

func newHost(cfg HostConfig, src hostinfo.Source) Collector {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(prometheus.BuildFQName(namespace, "host", name), help, labels, nil)
	}
	// named: a metric whose name hostinfo holds, as the bench reads it too.
	named := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(name, help, labels, nil)
	}
	return &hostCollector{
		cfg: cfg,
		src: src,

		cpuSeconds: named(hostinfo.CPUSecondsMetric, "Seconds all CPUs spent in each mode, summed over CPUs.", "mode"),
		cpus:       d("cpus", "Number of logical CPUs."),

		memTotal:     named(hostinfo.MemoryTotalMetric, "Total usable RAM in bytes."),
		memAvailable: named(hostinfo.MemoryAvailableMetric, "RAM in bytes available to start new applications without swapping (MemAvailable)."),

		diskRead:    named(hostinfo.DiskReadMetric, "Bytes read from the block device.", hostinfo.DiskLabel),
		diskWritten: named(hostinfo.DiskWrittenMetric, "Bytes written to the block device.", hostinfo.DiskLabel),
		diskReads:   d("disk_reads_completed_total", "Read requests completed by the block device.", "device"),
		diskWrites:  d("disk_writes_completed_total", "Write requests completed by the block device.", "device"),
		diskIOTime:  named(hostinfo.DiskIOTimeMetric, "Seconds the block device spent with I/O in progress; its rate is utilisation.", hostinfo.DiskLabel),

		netRxBytes: named(hostinfo.NetworkReceiveMetric, "Bytes received on the network interface.", hostinfo.NetworkLabel),
		netTxBytes: named(hostinfo.NetworkTransmitMetric, "Bytes transmitted on the network interface.", hostinfo.NetworkLabel),
		netRxPkts:  d("network_receive_packets_total", "Packets received on the network interface.", "interface"),
		netTxPkts:  d("network_transmit_packets_total", "Packets transmitted on the network interface.", "interface"),
		netRxErrs:  d("network_receive_errors_total", "Receive errors on the network interface.", "interface"),
		netTxErrs:  d("network_transmit_errors_total", "Transmit errors on the network interface.", "interface"),
	}
}

// Update emits every section it can read; a failing section does not
// prevent the others, and all failures are returned joined.
func (c *hostCollector) Update(ch chan<- prometheus.Metric) error {
	ctx := context.Background()
	return errors.Join(
		c.updateCPU(ctx, ch),
		c.updateMemory(ctx, ch),
		c.updateDisks(ctx, ch),
		c.updateNetwork(ctx, ch),
	)
}

func counter(ch chan<- prometheus.Metric, d *prometheus.Desc, v float64, labels ...string) {
	ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
}

func gauge(ch chan<- prometheus.Metric, d *prometheus.Desc, v float64) {
	ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v)
}

func (c *hostCollector) updateCPU(ctx context.Context, ch chan<- prometheus.Metric) error {
	var errs []error
	if t, err := c.src.CPUTimes(ctx); err != nil {
		errs = append(errs, fmt.Errorf("cpu times: %w", err))
	} else {
		for _, m := range hostinfo.Modes(t) {
			counter(ch, c.cpuSeconds, m.Seconds, m.Name)
		}
	}
	if n, err := c.src.CPUCount(ctx); err != nil {
		errs = append(errs, fmt.Errorf("cpu count: %w", err))
	} else {
		gauge(ch, c.cpus, float64(n))
	}
	return errors.Join(errs...)
}

func (c *hostCollector) updateMemory(ctx context.Context, ch chan<- prometheus.Metric) error {
	m, err := c.src.Memory(ctx)
	if err != nil {
		return fmt.Errorf("memory: %w", err)
	}
	gauge(ch, c.memTotal, float64(m.Total))
	gauge(ch, c.memAvailable, float64(m.Available))
	return nil
}

func (c *hostCollector) updateDisks(ctx context.Context, ch chan<- prometheus.Metric) error {
	disks, err := c.src.DiskIO(ctx)
	if err != nil {
		return fmt.Errorf("disk io: %w", err)
	}
	for name, s := range hostinfo.SelectDisks(disks, c.cfg.Disks) {
		counter(ch, c.diskRead, float64(s.ReadBytes), name)
		counter(ch, c.diskWritten, float64(s.WriteBytes), name)
		counter(ch, c.diskReads, float64(s.ReadCount), name)
		counter(ch, c.diskWrites, float64(s.WriteCount), name)
		counter(ch, c.diskIOTime, hostinfo.IOTimeSeconds(s), name)
	}
	return nil
}

func (c *hostCollector) updateNetwork(ctx context.Context, ch chan<- prometheus.Metric) error {
	ifaces, err := c.src.NetIO(ctx)
	if err != nil {
		return fmt.Errorf("network io: %w", err)
	}
	for _, s := range hostinfo.SelectInterfaces(ifaces, c.cfg.Interfaces) {
		counter(ch, c.netRxBytes, float64(s.BytesRecv), s.Name)
		counter(ch, c.netTxBytes, float64(s.BytesSent), s.Name)
		counter(ch, c.netRxPkts, float64(s.PacketsRecv), s.Name)
		counter(ch, c.netTxPkts, float64(s.PacketsSent), s.Name)
		counter(ch, c.netRxErrs, float64(s.Errin), s.Name)
		counter(ch, c.netTxErrs, float64(s.Errout), s.Name)
	}
	return nil
}
