package kclient

import (
	"context"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kafka-bench/kafka_bench_exporter/config"
)

// connectCounts are the observations of the connect histogram by node_id
// and outcome.
func connectCounts(t *testing.T, reg *prometheus.Registry) map[[2]string]uint64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[[2]string]uint64{}
	for _, mf := range mfs {
		if mf.GetName() != kpromNamespace+"_connect_duration_seconds" {
			continue
		}
		for _, m := range mf.GetMetric() {
			out[[2]string{label(m, "node_id"), label(m, "outcome")}] += m.GetHistogram().GetSampleCount()
		}
	}
	return out
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// Each connection attempt is timed by broker and outcome: a broker that
// answers gives successes under its node id, a seed nobody listens on
// failures, and the histogram leaves the registry with its client.
func TestConnectDurationByBrokerAndOutcome(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	_ = ln.Close() // nothing listens there now: connecting fails at once

	reg := prometheus.NewRegistry()
	o := Options{Logger: slog.New(slog.DiscardHandler), Registerer: reg, Labels: Labels{Probe: "p", Role: RoleAdmin}, Probing: true}
	cl, err := New(config.Cluster{Kafka: config.Kafka{Brokers: c.ListenAddrs(), ClientID: "t"}}, o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := cl.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	got := connectCounts(t, reg)
	if got[[2]string{"seed_0", ConnectSuccess}] == 0 {
		t.Errorf("no successful connection to seed_0 observed: %v", got)
	}
	cl.Close()
	if got := connectCounts(t, reg); len(got) != 0 {
		t.Errorf("connect histogram left in the registry after the client closed: %v", got)
	}

	bad, err := New(config.Cluster{Kafka: config.Kafka{Brokers: []string{dead}, ClientID: "t"}}, o)
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()
	pctx, pcancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer pcancel()
	if err := bad.Ping(pctx); err == nil {
		t.Fatal("ping of a closed port succeeded")
	}
	got = connectCounts(t, reg)
	if got[[2]string{"seed_0", ConnectFailure}] == 0 || got[[2]string{"seed_0", ConnectSuccess}] != 0 {
		t.Errorf("want only failures to seed_0, got %v", got)
	}
}
