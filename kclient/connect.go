package kclient

import (
	"net"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Outcomes of a connection attempt (the outcome label of
// kafka_bench_client_connect_duration_seconds).
const (
	ConnectSuccess = "success"
	ConnectFailure = "failure"
)

// connectBuckets span a loopback connection's milliseconds to a
// Kerberos or OAuth login that takes seconds.
var connectBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// connectHook times each of a client's connection attempts to a usable
// connection, per broker: dial, TLS handshake, ApiVersions and the SASL
// flow, the one duration franz-go's OnBrokerConnect gives (an attempt that
// fails is timed to its failure, with outcome failure). Its histogram has
// the client's labels, as kprom's metrics of the same client, and leaves
// the registry with the client.
type connectHook struct {
	reg  prometheus.Registerer
	hist *prometheus.HistogramVec
}

var (
	_ kgo.HookBrokerConnect = (*connectHook)(nil)
	_ kgo.HookNewClient     = (*connectHook)(nil)
	_ kgo.HookClientClosed  = (*connectHook)(nil)
)

// newConnectHook is the hook of a client labelled labels; its histogram
// joins reg when the client is created (as kprom's do) and leaves it when
// the client is closed.
func newConnectHook(reg prometheus.Registerer, labels prometheus.Labels) *connectHook {
	return &connectHook{reg: reg, hist: prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:                            kpromNamespace + "_connect_duration_seconds",
		Help:                            "Time from dialling a broker to a connection ready for requests: TCP, TLS, ApiVersions and SASL authentication, by broker (node_id; seed_N = seed broker) and outcome (success, failure). A failed attempt is timed to its failure.",
		ConstLabels:                     labels,
		Buckets:                         connectBuckets,
		NativeHistogramBucketFactor:     1.1,
		NativeHistogramMaxBucketNumber:  100,
		NativeHistogramMinResetDuration: time.Hour,
	}, []string{"node_id", "outcome"})}
}

// OnNewClient registers the histogram. Two live clients never share
// labels (kprom's registration of the same client would panic first).
func (h *connectHook) OnNewClient(*kgo.Client) {
	_ = h.reg.Register(h.hist)
}

func (h *connectHook) OnBrokerConnect(meta kgo.BrokerMetadata, initDur time.Duration, _ net.Conn, err error) {
	outcome := ConnectSuccess
	if err != nil {
		outcome = ConnectFailure
	}
	h.hist.WithLabelValues(kgo.NodeName(meta.NodeID), outcome).Observe(initDur.Seconds())
}

func (h *connectHook) OnClientClosed(*kgo.Client) {
	h.reg.Unregister(h.hist)
}
