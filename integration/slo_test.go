package integration

import (
	"context"
	"fmt"
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
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

// availabilityConfig is a non-default _config of the mixin: another
// cluster label, a delivery window (100 ms) that a slow broker's records
// miss, and windows short enough for a test.
const availabilityConfig = `{
  clusterLabel: 'kafka_cluster',
  sloBaseWindow: '10s',
  availabilityBurnRates: [{ long: '30s', short: '10s', factor: 14.4, 'for': '1s', severity: 'critical' }],
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
	brokerNormal  = iota
	brokerSlow    // every Produce answer held back slowProduce
	brokerFailing // every Produce answered INVALID_RECORD, which is not retried
	brokerLosing  // every Produce acknowledged and not stored
)

// TestAvailabilitySLOEndToEnd renders the mixin with availabilityConfig for
// a real Prometheus 3 (native and classic histograms) scraping an exporter:
// a slow broker fires KafkaBenchDeliverySLOBurn, failing produce requests
// KafkaBenchProduceSuccessSLOBurn and records acknowledged but not stored
// KafkaBenchLossSLOBurn, each labelled by the configured cluster label, and
// each resolves once the broker is well again.
func TestAvailabilitySLOEndToEnd(t *testing.T) {
	if testing.Short() && !testenv.Strict() {
		t.Skip("end-to-end test skipped in -short mode (set KAFKA_BENCH_INTEGRATION=1 to force)")
	}
	bin := promtest.Required(t)
	o, err := mixin.Render(availabilityConfig)
	if err != nil {
		t.Fatal(err)
	}
	var mode atomic.Int32
	c := startControlledCluster(t, &mode)
	x := exportertest.Start(t, availabilityExporter, c.ListenAddrs())
	x.WaitReady(t, 60*time.Second)
	prom := promtest.Start(t, promtest.Config{
		Targets:   []promtest.ScrapeTarget{{Addr: strings.TrimPrefix(x.URL, "http://"), Labels: map[string]string{"kafka_cluster": slowCluster}}},
		RuleFiles: o.Rules,
		Mode:      promtest.Both,
		Binaries:  &bin,
	})
	prom.WaitTargetsUp(t, 30*time.Second)

	for _, phase := range []struct {
		alert string
		mode  int32
	}{
		{"KafkaBenchDeliverySLOBurn", brokerSlow},
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
		waitAlert(t, prom, phase.alert+" firing for kafka_cluster "+slowCluster, func(as []promtest.Alert) (bool, string) {
			var seen []string
			for _, a := range as {
				if a.Name == phase.alert {
					if a.Labels["kafka_cluster"] == slowCluster && a.State == "firing" {
						return true, ""
					}
					seen = append(seen, fmt.Sprintf("%v %s", a.Labels, a.State))
				}
			}
			return false, fmt.Sprintf("active: %v", seen)
		})
		mode.Store(brokerNormal)
		waitAlert(t, prom, phase.alert+" resolved", func(as []promtest.Alert) (bool, string) {
			for _, a := range as {
				if a.Name == phase.alert {
					return false, fmt.Sprintf("still %s: %v", a.State, a.Labels)
				}
			}
			return true, ""
		})
	}
}

func waitAlert(t *testing.T, prom *promtest.Prometheus, what string, ok func([]promtest.Alert) (bool, string)) {
	t.Helper()
	probetest.Eventually(t, 180*time.Second, what, func() (bool, string) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		as, err := prom.Alerts(ctx)
		if err != nil {
			return false, err.Error()
		}
		return ok(as)
	})
}

// startControlledCluster starts a kfake cluster whose Produce answers
// follow mode (brokerNormal, brokerSlow, brokerFailing, brokerLosing).
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
