package configwatch

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kafka-bench/kafka_bench_exporter/internal/testwait"
)

// TestRestartSeenBetweenPolls: with an hour between configuration polls, a
// broker that leaves the metadata loses its kafka_bench_broker_info series,
// and once it is back a restart is counted and both moves are listed for
// /changes; the version label comes with the poll its return asks for.
func TestRestartSeenBetweenPolls(t *testing.T) {
	f := start(t)
	f.target.Interval = time.Hour
	f.w.Apply(context.Background(), f.target)
	testwait.Until(t, 30*time.Second, 20*time.Millisecond, "three brokers with their release", func() (bool, string) {
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
	testwait.Until(t, 30*time.Second, 20*time.Millisecond, "broker 2's info series gone", func() (bool, string) {
		fs := f.gather(t)
		_, ok := fs.Value("kafka_bench_broker_info", "broker", "2")
		return !ok, fmt.Sprint(len(fs.Find("kafka_bench_broker_info")), " series")
	})
	if _, _, err := f.cluster.AddNode(2, port); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, 30*time.Second, 20*time.Millisecond, "broker 2's restart counted and its info back", func() (bool, string) {
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

// TestUpgradeCountedOnce: a configuration poll that began before broker 2
// stopped ends after its return, with the release it answered before; the
// next poll sees the new release. One restart, one release change.
func TestUpgradeCountedOnce(t *testing.T) {
	reg := prometheus.NewRegistry()
	w := New(reg, slog.New(slog.DiscardHandler), Options{})
	f := &fixture{reg: reg}
	versions := func(v2 string) snapshot {
		return snapshot{facts: &facts{clusterID: "c1", version: "v4.0", brokers: []int32{1, 2},
			versions: map[int32]string{1: "v4.0", 2: v2}}}
	}
	t0 := time.Unix(1700000000, 0)
	w.observeMembers(w.gen, t0, []int32{1, 2})
	w.observe(w.gen, t0.Add(time.Second), time.Second, versions("v4.0"))
	// A poll begins at t1; meanwhile broker 2 leaves the metadata and is
	// back, upgraded.
	t1 := t0.Add(time.Minute)
	w.observeMembers(w.gen, t1.Add(time.Second), []int32{1})
	w.observeMembers(w.gen, t1.Add(5*time.Second), []int32{1, 2})
	w.observe(w.gen, t1.Add(6*time.Second), 6*time.Second, versions("v4.0")) // asked before the stop
	w.observe(w.gen, t1.Add(8*time.Second), time.Second, versions("v4.1"))
	m := f.gather(t)
	if n, _ := m.Value("kafka_bench_broker_restarts_total", "broker", "2"); n != 1 {
		t.Errorf("kafka_bench_broker_restarts_total{broker=2} = %v, want 1", n)
	}
	if n, _ := m.Value("kafka_bench_broker_version_changes_total", "broker", "2"); n != 1 {
		t.Errorf("kafka_bench_broker_version_changes_total{broker=2} = %v, want 1", n)
	}
	if v := m.Label("kafka_bench_broker_info", "version", "broker", "2"); v != "v4.1" {
		t.Errorf("broker 2 version %q, want v4.1", v)
	}
	// The mark is cleared by the poll that told the new release: a later
	// upgrade without a return seen counts again.
	w.observe(w.gen, t1.Add(time.Hour), time.Second, versions("v4.2"))
	if n, _ := f.gather(t).Value("kafka_bench_broker_restarts_total", "broker", "2"); n != 2 {
		t.Errorf("after a second upgrade: restarts %v, want 2", n)
	}
}
