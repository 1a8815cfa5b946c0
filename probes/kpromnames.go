package probes

import (
	"regexp"
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
	labels  prometheus.Labels // kprom's static labels of this client
	mu      sync.Mutex
	renamed map[prometheus.Collector]prometheus.Collector
}

func newKpromRegisterer(reg prometheus.Registerer, labels prometheus.Labels) *kpromRegisterer {
	return &kpromRegisterer{reg: reg, labels: labels, renamed: map[prometheus.Collector]prometheus.Collector{}}
}

var descFields = regexp.MustCompile(`fqName: "([^"]*)", help: "((?:[^"\\]|\\.)*)"`)

func (k *kpromRegisterer) Register(c prometheus.Collector) error {
	ch := make(chan *prometheus.Desc, 1)
	go func() { c.Describe(ch); close(ch) }()
	var name, help string
	for d := range ch {
		if m := descFields.FindStringSubmatch(d.String()); m != nil {
			name, help = m[1], m[2]
		}
	}
	if !strings.HasPrefix(name, "kafka_bench_client_buffered_") || !strings.HasSuffix(name, "_records_total") {
		return k.reg.Register(c)
	}
	r := &renamedGauge{inner: c, desc: prometheus.NewDesc(strings.TrimSuffix(name, "_total"), help, nil, k.labels)}
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
