package kclient

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// The embedded cluster keeps records in memory; retention must delete them
// or a quick start left running grows without bound.
func TestEmbeddedRetentionDeletesOldRecords(t *testing.T) {
	e, err := startEmbedded(slog.New(slog.DiscardHandler), 200*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.Brokers()...), kgo.DefaultProduceTopic("r"), kgo.AllowAutoTopicCreation())
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := adm.CreateTopic(ctx, 1, 1, nil, "r"); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10; i++ {
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
