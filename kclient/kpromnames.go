package kclient

import (
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// kprom names two gauges with a `_total` suffix
// (buffered_{produce,fetch}_records_total), which Prometheus reserves for
// counters and `promtool check metrics` rejects. kpromRegisterer exposes them
// without the suffix and passes every other kprom collector through.
type kpromRegisterer struct {
	reg     prometheus.Registerer
	rename  map[string]*prometheus.Desc // kprom's descriptor (as a string) → ours
	mu      sync.Mutex
	renamed map[prometheus.Collector]prometheus.Collector
}

// kpromNamespace prefixes every kprom metric name.
const kpromNamespace = "kafka_bench_client"

// suffixedGauges are the two gauges, by the name and help kprom gives them
// (kprom.go, NewMetrics). Should kprom rename one, it is no longer renamed
// here and the exposition test (exporter/testdata/metric_names.txt) fails.
var suffixedGauges = []struct{ name, help string }{
	{kpromNamespace + "_buffered_produce_records_total", "Total number of records buffered within the client ready to be produced"},
	{kpromNamespace + "_buffered_fetch_records_total", "Total number of records buffered within the client ready to be consumed"},
}

// newKpromRegisterer registers on reg; labels are kprom's static labels of
// this client, part of the descriptors it builds. A Desc has no accessors,
// so a collector is matched by comparing its whole descriptor with the one
// kprom builds for a table entry: equal descriptors print the same.
func newKpromRegisterer(reg prometheus.Registerer, labels prometheus.Labels) *kpromRegisterer {
	k := &kpromRegisterer{reg: reg, rename: map[string]*prometheus.Desc{}, renamed: map[prometheus.Collector]prometheus.Collector{}}
	for _, g := range suffixedGauges {
		theirs := prometheus.NewDesc(g.name, g.help, nil, labels)
		k.rename[theirs.String()] = prometheus.NewDesc(strings.TrimSuffix(g.name, "_total"), g.help, nil, labels)
	}
	return k
}

func (k *kpromRegisterer) Register(c prometheus.Collector) error {
	ch := make(chan *prometheus.Desc, 1)
	go func() { c.Describe(ch); close(ch) }()
	var ours *prometheus.Desc
	for d := range ch {
		if r, ok := k.rename[d.String()]; ok {
			ours = r
		}
	}
	if ours == nil {
		return k.reg.Register(c)
	}
	r := &renamedGauge{inner: c, desc: ours}
	k.mu.Lock()
	k.renamed[c] = r
	k.mu.Unlock()
	return k.reg.Register(r)
}

func (k *kpromRegisterer) MustRegister(cs ...prometheus.Collector) {
	for _, c := range cs {
		if err := k.Register(c); err != nil {
			panic(err)
		}
	}
}

func (k *kpromRegisterer) Unregister(c prometheus.Collector) bool {
	k.mu.Lock()
	if r, ok := k.renamed[c]; ok {
		delete(k.renamed, c)
		c = r
	}
	k.mu.Unlock()
	return k.reg.Unregister(c)
}

// renamedGauge re-exports one gauge (kprom's are GaugeFuncs with only
// static labels) under another name.
type renamedGauge struct {
	inner prometheus.Collector
	desc  *prometheus.Desc
}

func (r *renamedGauge) Describe(ch chan<- *prometheus.Desc) { ch <- r.desc }

func (r *renamedGauge) Collect(ch chan<- prometheus.Metric) {
	inner := make(chan prometheus.Metric)
	go func() { r.inner.Collect(inner); close(inner) }()
	for m := range inner {
		var pb dto.Metric
		if err := m.Write(&pb); err == nil && pb.Gauge != nil {
			ch <- prometheus.MustNewConstMetric(r.desc, prometheus.GaugeValue, pb.Gauge.GetValue())
		}
	}
}

// Registerer receives the client metrics (Options.Registerer): Prometheus's,
// named here so that the probe engine passes one on without knowing
// Prometheus.
type Registerer = prometheus.Registerer
