package integration

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-bench/kafka_bench_exporter/internal/exportertest"
	"github.com/kafka-bench/kafka_bench_exporter/internal/promtest"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testenv"
	"github.com/kafka-bench/kafka_bench_exporter/mixin"
)

// availabilityWindows is the mixin's _config with its defaults but for the
// windows of the availability SLOs, short enough for a test.
const availabilityWindows = `{
  sloBaseWindow: '10s',
  availabilityBurnRates: [{ long: '30s', short: '10s', factor: 14.4, 'for': '1s', severity: 'critical' }],
}`

// availabilityConfig is a non-default _config besides: another cluster
// label, and a delivery window (100 ms) that a slightly slow broker's
// records miss and the default window (1 s) does not.
const availabilityConfig = availabilityWindows + ` + {
  clusterLabel: 'kafka_cluster',
  availabilitySLOs+: { delivery+: { groups: [{ name: 'default', probeMatcher: '', window: 0.1, objective: 0.999 }] } },
}`

// availabilityExporter runs one probe whose loss shows 2 s after the
// consumer reads past a record, without idempotent writes, so a broker
// that acknowledges records it does not store loses them.
const availabilityExporter = `
probes:
  - name: a
    rate: 200
    record_size: 200
    lag_interval: 1s
    loss_grace_period: 2s
    producer:
      enable.idempotence: false
`

// Broker behaviours of the availability test's cluster.
const (
	brokerNormal   = iota
	brokerSlow     // every Produce answer held back slowProduce
	brokerVerySlow // every Produce answer held back verySlowProduce
	brokerFailing  // every Produce answered INVALID_RECORD, which is not retried
	brokerLosing   // every Produce acknowledged and not stored
)

// verySlowProduce is over the default delivery window (1 s).
const verySlowProduce = 1500 * time.Millisecond

// testAvailabilitySLOEndToEnd (TestPrometheusEndToEnd) runs the availability SLOs' rules, rendered
// from the mixin, on real Prometheus servers scraping an exporter: Prometheus
// 3 in each histogram ingestion mode and Debian's Prometheus 2, each with
// availabilityWindows but Prometheus 3 (both forms) with availabilityConfig.
// A slow broker fires KafkaBenchDeliverySLOBurn (first only where the
// window is 100 ms, then, slower, everywhere), failing produce requests
// KafkaBenchProduceSuccessSLOBurn and records acknowledged but not stored
// KafkaBenchLossSLOBurn, each on every server and labelled by the server's
// cluster label, and each resolves everywhere once the broker is well
// again.
// TestPrometheusEndToEnd runs the two end-to-end tests of the dashboards
// and rules side by side, each with four Prometheus servers of its own,
// beside no other test: their Prometheus servers would starve the others
// on two cores, and their queries have deadlines.
func TestPrometheusEndToEnd(t *testing.T) {
	sideBySide(t, []subtest{{"Monitoring", testMonitoringEndToEnd}}, []subtest{{"AvailabilitySLO", testAvailabilitySLOEndToEnd}})
}

func testAvailabilitySLOEndToEnd(t *testing.T) {
	if testing.Short() && !testenv.Strict() {
		t.Skip("end-to-end test skipped in -short mode (set KAFKA_BENCH_INTEGRATION=1 to force)")
	}
	v3 := promtest.Required(t)
	v2 := promtest.Debian(t)
	defaults, err := mixin.Render(availabilityWindows)
	if err != nil {
		t.Fatal(err)
	}
	custom, err := mixin.Render(availabilityConfig)
	if err != nil {
		t.Fatal(err)
	}
	var mode atomic.Int32
	c := startControlledCluster(t, &mode)
	x := exportertest.Start(t, availabilityExporter, c.ListenAddrs())
	x.WaitReady(t, 60*time.Second)

	servers := []*server{
		{name: "prometheus3-classic", mode: promtest.Classic, v3: true},
		{name: "prometheus3-native", mode: promtest.Native, v3: true},
		{name: "prometheus3-both (non-default _config)", mode: promtest.Both, v3: true, clusterLabel: "kafka_cluster"},
		{name: "prometheus2-classic", mode: promtest.Classic},
	}
	for _, s := range servers {
		bin, rules := v3, defaults.Rules
		if !s.v3 {
			bin = v2
		}
		if s.clusterLabel != "" {
			rules = custom.Rules
		}
		s.prom = promtest.Start(t, promtest.Config{
			Targets:   []promtest.ScrapeTarget{{Addr: strings.TrimPrefix(x.URL, "http://"), Labels: map[string]string{s.label(): slowCluster}}},
			RuleFiles: rules,
			Mode:      s.mode,
			Binaries:  &bin,
		})
	}
	for _, s := range servers {
		s.prom.WaitTargetsUp(t, 30*time.Second)
	}
	var customOnly []*server // the server with availabilityConfig
	for _, s := range servers {
		if s.clusterLabel != "" {
			customOnly = append(customOnly, s)
		}
	}

	const delivery = "KafkaBenchDeliverySLOBurn"
	mode.Store(brokerSlow)
	waitAlerts(t, customOnly, delivery+" firing for "+slowCluster+" (100 ms window)", firingFor(delivery, slowCluster))
	mode.Store(brokerVerySlow)
	waitAlerts(t, servers, delivery+" firing for "+slowCluster, firingFor(delivery, slowCluster))
	mode.Store(brokerNormal)
	waitAlerts(t, servers, delivery+" resolved", resolved(delivery))

	for _, phase := range []struct {
		alert string
		mode  int32
	}{
		{"KafkaBenchProduceSuccessSLOBurn", brokerFailing},
		{"KafkaBenchLossSLOBurn", brokerLosing},
	} {
		mode.Store(phase.mode)
		if phase.mode == brokerLosing {
			// Lose a few seconds of records; the loss shows once the
			// consumer reads the records after them.
			time.Sleep(3 * time.Second)
			mode.Store(brokerNormal)
		}
		waitAlerts(t, servers, phase.alert+" firing for "+slowCluster, firingFor(phase.alert, slowCluster))
		mode.Store(brokerNormal)
		waitAlerts(t, servers, phase.alert+" resolved", resolved(phase.alert))
	}
}

// startControlledCluster starts a kfake cluster whose Produce answers
// follow mode (brokerNormal, brokerSlow, brokerVerySlow, brokerFailing,
// brokerLosing).
func startControlledCluster(t *testing.T, mode *atomic.Int32) *kfake.Cluster {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(3))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	c.ControlKey(int16(kmsg.Produce), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		switch mode.Load() {
		case brokerSlow:
			c.SleepControl(func() { time.Sleep(slowProduce) })
		case brokerVerySlow:
			c.SleepControl(func() { time.Sleep(verySlowProduce) })
		case brokerFailing, brokerLosing:
			req := kreq.(*kmsg.ProduceRequest)
			resp := req.ResponseKind().(*kmsg.ProduceResponse)
			for _, rt := range req.Topics {
				st := kmsg.NewProduceResponseTopic()
				st.Topic = rt.Topic
				st.TopicID = rt.TopicID
				for _, rp := range rt.Partitions {
					sp := kmsg.NewProduceResponseTopicPartition()
					sp.Partition = rp.Partition
					if mode.Load() == brokerFailing {
						sp.ErrorCode = kerr.InvalidRecord.Code
					}
					st.Partitions = append(st.Partitions, sp)
				}
				resp.Topics = append(resp.Topics, st)
			}
			return resp, nil, true
		}
		return nil, nil, false
	})
	return c
}
