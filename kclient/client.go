// Package kclient is the one home for talking to Kafka: connection and
// security options from the resolved config, the Kafka property mapping,
// client construction with kprom metrics, topic helpers and the
// classification of authentication failures. The probe engine, bench
// mode and the configuration watcher all build their clients here.
package kclient

import (
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/plugin/kprom"

	"github.com/kafka-bench/kafka_bench_exporter/config"
)

// Client roles, the `role` label of the kprom client metrics.
const (
	RoleProducer = "producer"
	RoleConsumer = "consumer"
	RoleAdmin    = "admin"
)

// metadataMinAge bounds how often a probing client may refresh metadata.
const metadataMinAge = 250 * time.Millisecond

// Options say what a client reports and how it recovers, beyond reaching
// the cluster; the zero value is a plain client of its own.
type Options struct {
	// Logger receives franz-go's own log lines, labelled with the probe
	// and the role; nil drops them.
	Logger *slog.Logger
	// Registerer receives the kprom client metrics, labelled with Labels;
	// nil leaves them out.
	Registerer Registerer
	Labels     Labels
	// Credentials hold the TLS material and SASL secrets of every kafka
	// section, shared by all clients built with the same pool (one OAuth
	// token per section) and reloaded when their files change; nil gives
	// the client credentials of its own (not counted in metrics), for a
	// one-off client that shares a section with no other.
	Credentials *CredentialPool
	// Probing makes the client reconnect quickly and refresh metadata soon
	// after a leader moved: a probe must see what the cluster does at once.
	Probing bool
}

// Labels name a client of a probe: the probe, its role and the member index
// (a probe has several consumer clients).
type Labels struct {
	Probe, Role, Member string
}

// New creates a client of the resolved cluster k (seeds, client id, TLS,
// SASL) with what o asks for and the extra options.
func New(k config.Cluster, o Options, extra ...kgo.Opt) (*kgo.Client, error) {
	opts, err := clientOpts(k, o)
	if err != nil {
		return nil, err
	}
	return kgo.NewClient(append(opts, extra...)...)
}

// ProbingOpts are how a probing client recovers, where franz-go's defaults
// would hold it back longer than Kafka's own clients.
func ProbingOpts() []kgo.Opt {
	return []kgo.Opt{
		// Reconnect quickly when a broker returns: the probe should see it
		// as soon as clients do, not after a long backoff.
		kgo.RetryBackoffFn(func(tries int) time.Duration {
			return min(time.Duration(tries)*100*time.Millisecond, time.Second)
		}),
		// After NOT_LEADER_OR_FOLLOWER (a leader moved, or a new topic not
		// yet loaded by its broker) franz-go refreshes metadata no sooner
		// than this after the last refresh; its default of 5 s held every
		// record of the partition 5 s where the Java client retries after
		// 100 ms.
		kgo.MetadataMinAge(metadataMinAge),
	}
}

// clientOpts are the options of New before the role's own (extra); Check
// builds its clients from them too.
func clientOpts(k config.Cluster, o Options) ([]kgo.Opt, error) {
	opts, err := connOpts(k, o)
	if err != nil {
		return nil, err
	}
	if o.Logger != nil {
		opts = append(opts, kgo.WithLogger(newSlogAdapter(o.Logger.With("probe", o.Labels.Probe, "role", o.Labels.Role))))
	}
	if o.Probing {
		opts = append(opts, ProbingOpts()...)
	}
	if o.Registerer != nil {
		labels := prometheus.Labels{"probe": o.Labels.Probe, "role": o.Labels.Role, "member": o.Labels.Member}
		m := kprom.NewMetrics(kpromNamespace,
			kprom.Registerer(newKpromRegisterer(o.Registerer, labels)),
			kprom.WithStaticLabel(labels),
			kprom.Histograms(kprom.RequestDurationE2E),
		)
		opts = append(opts, kgo.WithHooks(m, newConnectHook(o.Registerer, labels)))
	}
	return opts, nil
}

// connOpts say how to reach and authenticate to the cluster: seeds, client
// id, TLS (kafka.tls) and SASL (kafka.sasl).
func connOpts(k config.Cluster, o Options) ([]kgo.Opt, error) {
	opts := []kgo.Opt{kgo.SeedBrokers(k.Kafka.Brokers...), kgo.ClientID(k.Kafka.ClientID)}
	var creds *Credentials
	var err error
	if o.Credentials == nil {
		creds, err = NewCredentials(k, nil, o.Logger)
	} else {
		creds, err = o.Credentials.For(k)
	}
	if err != nil {
		return nil, err
	}
	return append(opts, creds.opts()...), nil
}
