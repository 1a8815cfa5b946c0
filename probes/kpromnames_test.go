package probes

import (
	"log/slog"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

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
	k := config.Kafka{Brokers: c.ListenAddrs(), ClientID: "t"}
	for i := 0; i < 3; i++ {
		opts, err := commonOpts(k, reg, slog.New(slog.DiscardHandler), "p", RoleConsumer, "0")
		if err != nil {
			t.Fatal(err)
		}
		cl, err := kgo.NewClient(opts...)
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
		if !names["kafka_bench_client_buffered_produce_records"] || names["kafka_bench_client_buffered_produce_records_total"] {
			t.Fatalf("kprom gauges not renamed: %v", names)
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
