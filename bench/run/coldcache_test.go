package run

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Brokers whose segment files are not on this machine (kfake keeps them in
// memory) leave the read warm, and say why.
func TestDropPageCacheOfARemoteBroker(t *testing.T) {
	cl := kfakeTopic(t, 1)
	if err := cl.ProduceSync(context.Background(), &kgo.Record{Value: []byte("x")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	got := DropPageCache(context.Background(), kadm.NewClient(cl), "t", false)
	if !strings.HasPrefix(got, pageCacheWarm) || len(got) == len(pageCacheWarm) {
		t.Errorf("DropPageCache = %q, want %q and why", got, pageCacheWarm)
	}
}

// read_delay waits until the topic's newest record is that old.
func TestWaitReadDelay(t *testing.T) {
	cl := kfakeTopic(t, 2)
	r, err := cl.ProduceSync(context.Background(), &kgo.Record{Value: []byte("x")}).First()
	if err != nil {
		t.Fatal(err)
	}
	const delay = 300 * time.Millisecond
	if err := waitReadDelay(context.Background(), kadm.NewClient(cl), "t", delay); err != nil {
		t.Fatal(err)
	}
	if age := time.Since(r.Timestamp.Truncate(time.Millisecond)); age < delay {
		t.Errorf("returned when the newest record was %v old, want %v", age, delay)
	}
}

// kfakeTopic is a client of an in-process cluster holding topic t of
// partitions partitions, its records produced to t; closed with the test.
func kfakeTopic(t *testing.T, partitions int32) *kgo.Client {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(partitions, "t"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.DefaultProduceTopic("t"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}
