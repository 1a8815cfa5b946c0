package kclient

import (
	"log/slog"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kafka-bench/kafka_bench_exporter/config"
)

// A client closed and another started with the same labels (a probe
// restarting its clients) must not leave duplicate series behind, and the
// renamed kprom gauges must lose their _total suffix.
func TestKpromClientsReplaceCleanly(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	reg := prometheus.NewRegistry()
	k := config.Cluster{Kafka: config.Kafka{Brokers: c.ListenAddrs(), ClientID: "t"}}
	for i := range 3 {
		cl, err := New(k, Options{Logger: slog.New(slog.DiscardHandler), Registerer: reg,
			Labels: Labels{Probe: "p", Role: RoleConsumer, Member: "0"}, Probing: true})
		if err != nil {
			t.Fatal(err)
		}
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatalf("gather with client %d: %v", i, err)
		}
		names := map[string]bool{}
		for _, mf := range mfs {
			names[mf.GetName()] = true
		}
		for _, g := range []string{"kafka_bench_client_buffered_produce_records", "kafka_bench_client_buffered_fetch_records"} {
			if !names[g] || names[g+"_total"] {
				t.Fatalf("kprom gauge %s not renamed: %v", g, names)
			}
		}
		cl.Close()
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	if len(mfs) != 0 {
		t.Errorf("%d metric families left after every client closed", len(mfs))
	}
}
