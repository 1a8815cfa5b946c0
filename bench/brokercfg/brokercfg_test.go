package brokercfg

import (
	"reflect"
	"testing"

	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/config"
)

// TestWanted: a per-broker setting wins over the every-broker one.
func TestWanted(t *testing.T) {
	c := &Changer{brokers: []int32{1, 2, 3}}
	got := c.wanted([]spec.ConfigSetting{
		{Key: "broker.2.num.io.threads", Broker: 2, Name: "num.io.threads", Value: "2"},
		{Key: "broker.num.io.threads", Broker: spec.AllBrokers, Name: "num.io.threads", Value: "1"},
		{Key: "topic.compression.type", Topic: true, Broker: spec.AllBrokers, Name: "compression.type", Value: "lz4"},
	}, "t")
	want := map[resource]map[string]string{
		{broker: 1}: {"num.io.threads": "1"}, {broker: 2}: {"num.io.threads": "2"}, {broker: 3}: {"num.io.threads": "1"},
		{topic: "t"}: {"compression.type": "lz4"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("wanted %v, want %v", got, want)
	}
}

// TestUndoCommand: what a failed restore prints runs as is.
func TestUndoCommand(t *testing.T) {
	c := &Changer{kafka: config.Kafka{Brokers: []string{"k1:9092", "k2:9092"}}}
	old := "a,b"
	cases := []struct {
		ch   change
		want string
	}{
		{change{res: resource{broker: 2}, name: "num.io.threads"},
			"kafka-configs.sh --bootstrap-server k1:9092,k2:9092 --entity-type brokers --entity-name 2 --alter --delete-config num.io.threads"},
		{change{res: resource{topic: "it's"}, name: "x.list", restore: &old},
			`kafka-configs.sh --bootstrap-server k1:9092,k2:9092 --entity-type topics --entity-name 'it'\''s' --alter --add-config 'x.list=[a,b]'`},
	}
	for _, cs := range cases {
		if got := c.undoCommand(cs.ch); got != cs.want {
			t.Errorf("undo\n got %s\nwant %s", got, cs.want)
		}
	}
}

// TestThreadPoolSteps: Kafka takes a thread pool at most to half or double
// its size at once, so 8 → 1 goes through 4 and 2.
func TestThreadPoolSteps(t *testing.T) {
	p := func(s string) *string { return &s }
	cases := []struct {
		name, from, to string
		want           []string
	}{
		{"num.io.threads", "8", "1", []string{"4", "2"}},
		{"num.io.threads", "1", "8", []string{"2", "4"}},
		{"num.replica.fetchers", "6", "1", []string{"3"}},
		{"num.io.threads", "8", "16", nil},
		{"num.io.threads", "8", "8", nil},
		{"compression.type", "1", "8", nil},
	}
	for _, c := range cases {
		if got := steps(c.name, p(c.from), p(c.to)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("steps(%s, %s → %s) = %v, want %v", c.name, c.from, c.to, got, c.want)
		}
	}
}
