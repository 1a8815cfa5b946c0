package embedded

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/kclient"
)

// The embedded cluster keeps records in memory; retention must delete them
// or a quick start left running grows without bound.
func TestEmbeddedRetentionDeletesOldRecords(t *testing.T) {
	e, err := start(slog.New(slog.DiscardHandler), 200*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	cl, err := kclient.New(config.Cluster{Kafka: config.Kafka{Brokers: e.Brokers(), ClientID: "t"}}, kclient.Options{}, kgo.DefaultProduceTopic("r"))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if _, err := kclient.CreateTopic(ctx, adm, "r", config.CreateTopic{Partitions: 1, ReplicationFactor: 1}); err != nil {
		t.Fatal(err)
	}
	for range 10 {
		if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte("x")}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	for {
		starts, err := adm.ListStartOffsets(ctx, "r")
		if err != nil {
			t.Fatal(err)
		}
		if o, _ := starts.Lookup("r", 0); o.Offset == 10 {
			return // every record expired and was removed
		}
		select {
		case <-ctx.Done():
			t.Fatal("records were never removed by retention")
		case <-time.After(100 * time.Millisecond):
		}
	}
}
