package promsink

import (
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
	"github.com/kafka-bench/kafka_bench_exporter/probes/promsink/family"
)

// catchUpMetrics are the families of the catch-up windows, labelled by
// probe and window (config.CatchUp.From).
type catchUpMetrics struct {
	info          *prometheus.GaugeVec
	recordsPerSec *prometheus.GaugeVec
	bytesPerSec   *prometheus.GaugeVec
	firstRecord   *prometheus.GaugeVec
	windowAge     *prometheus.GaugeVec
	remote        *prometheus.GaugeVec
	lastRun       *prometheus.GaugeVec
	records       *prometheus.CounterVec
	bytes         *prometheus.CounterVec
	missing       *prometheus.CounterVec
	outOfOrder    *prometheus.CounterVec
	duplicated    *prometheus.CounterVec
	unchecked     *prometheus.CounterVec
	runs          *prometheus.CounterVec
	fetchLatency  *prometheus.HistogramVec
}

func newCatchUpMetrics(reg prometheus.Registerer) *catchUpMetrics {
	floor := strconv.Itoa(config.CatchUpFloorBytes>>20) + " MiB"
	m := &catchUpMetrics{
		info: family.Gauge("kafka_bench_catchup_info", "Settings of a catch-up window of a probe, as labels; always 1.", "window",
			"max_records", "max_bytes", "max_duration_seconds", "max_bytes_per_second", "interval_seconds"),
		recordsPerSec: family.Gauge("kafka_bench_catchup_records_per_second", "Records per second of the last catch-up read of the window, from the reader's start to its last record; a read of less than "+floor+" measures the latency of its first fetches more than throughput.", "window"),
		bytesPerSec:   family.Gauge("kafka_bench_catchup_bytes_per_second", "Record value bytes per second of the last catch-up read of the window, from the reader's start to its last record; a read of less than "+floor+" measures the latency of its first fetches more than throughput.", "window"),
		firstRecord:   family.Gauge("kafka_bench_catchup_first_record_seconds", "Time from the start of the last catch-up read of the window to its first record: the first fetch of a cold segment, or of the remote tier.", "window"),
		windowAge:     family.Gauge("kafka_bench_catchup_window_age_seconds", "Age of the oldest record the last catch-up read of the window read, at its start (its timestamp against the exporter's clock).", "window"),
		remote:        family.Gauge("kafka_bench_catchup_remote", "1 if the last catch-up read of the window started below a partition's local log start (ListOffsets for the earliest local offset, KIP-1005): read from the remote tier (KIP-405), else 0; absent when the brokers do not say.", "window"),
		lastRun:       family.Gauge("kafka_bench_catchup_last_run_timestamp_seconds", "Unix time the last catch-up read of the window ended.", "window"),
		records:       family.Counter("kafka_bench_catchup_read_records_total", "Records the catch-up reads of the window read, by the tier that served them: "+strings.Join(event.CatchUpTiers, ", ")+".", "window", "tier"),
		bytes:         family.Counter("kafka_bench_catchup_read_bytes_total", "Record value bytes the catch-up reads of the window read, by tier: "+strings.Join(event.CatchUpTiers, ", ")+".", "window", "tier"),
		missing:       family.Counter("kafka_bench_catchup_records_missing_total", "Probe records of this process missing between two records a catch-up read of the window read, less those the producer gave up on and those of aborted transactions: loss that the steady consumer did not see.", "window"),
		outOfOrder:    family.Counter("kafka_bench_catchup_records_out_of_order_total", "Probe records a catch-up read of the window read after a later record of the same partition and run.", "window"),
		duplicated:    family.Counter("kafka_bench_catchup_records_duplicated_total", "Probe records a catch-up read of the window read more than once in one read.", "window"),
		unchecked:     family.Counter("kafka_bench_catchup_records_unchecked_total", "Records a catch-up read of the window read whose gaps it could not check: another run's (an earlier exporter process; the records it gave up on are unknown), not probe records, or a run whose given-up records were too many to keep.", "window"),
		runs:          family.Counter("kafka_bench_catchup_runs_total", "Catch-up reads of the window, by why they ended: "+strings.Join(event.CatchUpEnds, ", ")+".", "window", "end"),
		fetchLatency:  family.Histogram("kafka_bench_catchup_fetch_latency_seconds", "Time from writing a fetch request of a catch-up reader to reading its response, by window.", "window"),
	}
	family.Register(reg, m.collectors()...)
	return m
}

func (m *catchUpMetrics) collectors() []family.Vec {
	return []family.Vec{m.info, m.recordsPerSec, m.bytesPerSec, m.firstRecord, m.windowAge, m.remote, m.lastRun,
		m.records, m.bytes, m.missing, m.outOfOrder, m.duplicated, m.unchecked, m.runs, m.fetchLatency}
}

func (m *catchUpMetrics) deleteProbe(name string) { family.DeleteProbe(name, m.collectors()...) }

// catchUpWindow are one window's children.
type catchUpWindow struct {
	m              *catchUpMetrics
	labels         [2]string                     // probe, window
	records, bytes map[string]prometheus.Counter // by tier
	missing        prometheus.Counter
	outOfOrder     prometheus.Counter
	duplicated     prometheus.Counter
	unchecked      prometheus.Counter
	runs           map[string]prometheus.Counter // by end
	fetchLatency   prometheus.Observer
}

// forProbe creates the counters of every window of the probe cfg at zero,
// and their info; nil without a window. The map is never changed
// afterwards, so the hooks read it from any goroutine.
func (m *catchUpMetrics) forProbe(cfg config.Probe) map[string]*catchUpWindow {
	if len(cfg.CatchUp) == 0 {
		return nil
	}
	ws := make(map[string]*catchUpWindow, len(cfg.CatchUp))
	for _, w := range cfg.CatchUp {
		ws[w.From] = m.forWindow(cfg.Name, w)
	}
	return ws
}

func (m *catchUpMetrics) forWindow(probe string, w config.CatchUp) *catchUpWindow {
	wm := &catchUpWindow{m: m, labels: [2]string{probe, w.From},
		records: map[string]prometheus.Counter{}, bytes: map[string]prometheus.Counter{}, runs: map[string]prometheus.Counter{},
		missing:      m.missing.WithLabelValues(probe, w.From),
		outOfOrder:   m.outOfOrder.WithLabelValues(probe, w.From),
		duplicated:   m.duplicated.WithLabelValues(probe, w.From),
		unchecked:    m.unchecked.WithLabelValues(probe, w.From),
		fetchLatency: m.fetchLatency.WithLabelValues(probe, w.From),
	}
	for _, t := range event.CatchUpTiers {
		wm.records[t] = m.records.WithLabelValues(probe, w.From, t)
		wm.bytes[t] = m.bytes.WithLabelValues(probe, w.From, t)
	}
	for _, e := range event.CatchUpEnds {
		wm.runs[e] = m.runs.WithLabelValues(probe, w.From, e)
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	m.info.WithLabelValues(probe, w.From, strconv.FormatInt(w.MaxRecords, 10), strconv.FormatInt(w.MaxBytes, 10),
		f(time.Duration(w.MaxDuration).Seconds()), f(w.MaxBytesPerSecond), f(time.Duration(w.Interval).Seconds())).Set(1)
	return wm
}

// OnCatchUpRead counts records read by the tier that served them.
func (p *probe) OnCatchUpRead(window, tier string, records, bytes int64) {
	if w := p.catchUp[window]; w != nil {
		w.records[tier].Add(float64(records))
		w.bytes[tier].Add(float64(bytes))
	}
}

// OnCatchUpFetch observes a catch-up reader's fetch latency.
func (p *probe) OnCatchUpFetch(window string, latency time.Duration) {
	if w := p.catchUp[window]; w != nil {
		w.fetchLatency.Observe(latency.Seconds())
	}
}

// OnCatchUpRun counts what a read found and sets the gauges of a read that
// ended (the throughput ones only when it read a record).
func (p *probe) OnCatchUpRun(r event.CatchUpRun) {
	w := p.catchUp[r.Window]
	if w == nil {
		return
	}
	m, l := w.m, w.labels[:]
	w.missing.Add(float64(r.Missing))
	w.outOfOrder.Add(float64(r.OutOfOrder))
	w.duplicated.Add(float64(r.Duplicated))
	w.unchecked.Add(float64(r.Unchecked))
	defer func() {
		// Last, so a scrape that sees the new time sees the read's gauges.
		w.runs[r.End].Inc()
		m.lastRun.WithLabelValues(l...).Set(float64(r.Ended.UnixNano()) / 1e9)
	}()
	if r.RemoteKnown {
		remote := 0.0
		if r.Remote {
			remote = 1
		}
		m.remote.WithLabelValues(l...).Set(remote)
	} else {
		m.remote.DeleteLabelValues(l...)
	}
	if r.Records == 0 {
		return
	}
	if d := r.Last.Sub(r.Start).Seconds(); d > 0 {
		m.recordsPerSec.WithLabelValues(l...).Set(float64(r.Records) / d)
		m.bytesPerSec.WithLabelValues(l...).Set(float64(r.Bytes) / d)
	}
	m.firstRecord.WithLabelValues(l...).Set(r.First.Sub(r.Start).Seconds())
	m.windowAge.WithLabelValues(l...).Set(r.Age.Seconds())
}
