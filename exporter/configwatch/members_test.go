package configwatch

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"testing"
	"time"
)

// TestRestartSeenBetweenPolls: with an hour between configuration polls, a
// broker that leaves the metadata loses its kafka_bench_broker_info series,
// and once it is back a restart is counted and both moves are listed for
// /changes; the version label comes with the poll its return asks for.
func TestRestartSeenBetweenPolls(t *testing.T) {
	f := start(t)
	f.target.Interval = time.Hour
	f.w.Apply(context.Background(), f.target)
	eventually(t, "three brokers with their release", func() (bool, string) {
		fs := f.gather(t)
		v := fs.Label("kafka_bench_broker_info", "version", "broker", "2")
		return len(fs.Find("kafka_bench_broker_info")) == 3 && v != "", fmt.Sprintf("%d series, broker 2 version %q", len(fs.Find("kafka_bench_broker_info")), v)
	})
	if v, ok := f.gather(t).Value("kafka_bench_broker_restarts_total", "broker", "2"); !ok || v != 0 {
		t.Fatalf("kafka_bench_broker_restarts_total{broker=2} = %v (present %v), want 0", v, ok)
	}
	// Broker 2 stops and comes back on its port: kfake's restart.
	_, portText, err := net.SplitHostPort(f.cluster.ListenAddrs()[2])
	if err != nil {
		t.Fatal(err)
	}
	port, _ := strconv.Atoi(portText)
	if err := f.cluster.RemoveNode(2); err != nil {
		t.Fatal(err)
	}
	eventually(t, "broker 2's info series gone", func() (bool, string) {
		fs := f.gather(t)
		_, ok := fs.Value("kafka_bench_broker_info", "broker", "2")
		return !ok, fmt.Sprint(len(fs.Find("kafka_bench_broker_info")), " series")
	})
	if _, _, err := f.cluster.AddNode(2, port); err != nil {
		t.Fatal(err)
	}
	eventually(t, "broker 2's restart counted and its info back", func() (bool, string) {
		fs := f.gather(t)
		n, _ := fs.Value("kafka_bench_broker_restarts_total", "broker", "2")
		v := fs.Label("kafka_bench_broker_info", "version", "broker", "2")
		return n == 1 && v != "", fmt.Sprintf("restarts %v, version %q", n, v)
	})
	var moves []string
	for _, c := range f.w.ring.List() {
		if c.Key == "registered" {
			moves = append(moves, c.Broker+":"+c.Old+"->"+c.New)
		}
	}
	if fmt.Sprint(moves) != "[2:false->true 2:true->false]" {
		t.Errorf("changes listed %v, want broker 2 leaving, then back (newest first)", moves)
	}
	for _, b := range []string{"0", "1"} {
		if v, _ := f.gather(t).Value("kafka_bench_broker_restarts_total", "broker", b); v != 0 {
			t.Errorf("broker %s: restarts %v, want 0", b, v)
		}
	}
	if got := f.logs.lines("broker back in the cluster metadata"); len(got) != 1 {
		t.Errorf("log lines of the return: %q, want 1", got)
	}
}
