package hostinfo

// Names of the host metrics the daemon's host collector serves, and the
// labels that tell their devices apart: the bench reads them back from
// another machine's exporter, so both take them from here.
const (
	CPUSecondsMetric      = "kafka_bench_host_cpu_seconds_total"
	MemoryTotalMetric     = "kafka_bench_host_memory_total_bytes"
	MemoryAvailableMetric = "kafka_bench_host_memory_available_bytes"
	DiskReadMetric        = "kafka_bench_host_disk_read_bytes_total"
	DiskWrittenMetric     = "kafka_bench_host_disk_written_bytes_total"
	DiskIOTimeMetric      = "kafka_bench_host_disk_io_time_seconds_total"
	NetworkReceiveMetric  = "kafka_bench_host_network_receive_bytes_total"
	NetworkTransmitMetric = "kafka_bench_host_network_transmit_bytes_total"
	DiskLabel             = "device"
	NetworkLabel          = "interface"
)
