package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/probes/capacity"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

func capacityRunner(t *testing.T, brokers []string, yamlProbe string) (*capacity.Canary, *probetest.Logs) {
	t.Helper()
	cfg, err := config.Parse([]byte("probes:\n" + yamlProbe))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Kafka.Brokers = brokers
	logger, logs := probetest.CaptureLogger()
	return capacity.New(cfg.Probes[0], capacity.Options{Kafka: config.Cluster{Kafka: cfg.Kafka}, Logger: logger}), logs
}

// A capacity run with 3 s steps on a real broker, with a ceiling far out of
// reach, finds a capacity > 0 and stops by itself at a limit it logs. The
// SLOs of these tests are generous: the test machine is shared and loaded,
// and a stall there is no property of the broker. The run drives the
// machine to a limit, so it runs alone (serial, see main_test.go), not
// beside the waiting tests.
func TestCapacityRunOnRealBroker(t *testing.T) {
	c := cluster(t, 1)
	ensureRunning(t, c)
	cp, logs := capacityRunner(t, c.Bootstrap(), `
  - name: cap-real
    record_size: 1024
    create_topic: {partitions: 3, replication_factor: 1}
    capacity: {interval: 2h, step_duration: 3s, start_rate: 250, growth: 2, max_rate: 10000000, latency_slo: 1s}
`)
	start := time.Now()
	res := cp.RunOnce(context.Background())
	t.Logf("capacity run: %s, limit %s, %.0f records/s, p99 %s, %d steps, in %s", res.Result, res.Limit,
		res.RecordsPerSecond, res.P99, len(res.Steps), time.Since(start).Round(time.Second))
	if res.Result != capacity.ResultOK || res.RecordsPerSecond <= 0 || res.P99 <= 0 {
		t.Fatalf("result = %+v, want ok with a capacity > 0", res)
	}
	if res.Limit == capacity.LimitCeiling {
		t.Errorf("the run reached a ceiling of 10M records/s of 1 KiB; want it stopped by a limit")
	}
	for _, want := range []string{"capacity step", "capacity run finished", "limit=" + res.Limit} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, logs)
		}
	}
}

// A Kafka client quota on the capacity clients' client.id is a known
// capacity: the run under it reports within 15 % of the quota and below the
// unthrottled run; once the quota is removed the capacity recovers. The
// steps (3 s) are shorter than the broker's quota window (11 s), where a
// step above the quota can pass before throttling starts: the best step is
// held for the window, so the capacity is never more above the quota than
// a passing step's 5 % shortfall allows.
func TestCapacityFollowsClientQuota(t *testing.T) {
	parallelLong(t) // waits more than it computes; see waiting in main_test.go
	c := cluster(t, 1)
	ensureRunning(t, c)
	const probe, quota = "cap-quota", 500_000.0
	// One partition and linger.ms 10 keep the request overhead the quota
	// also counts small against 1000-byte values. The ceiling (1.3 × the
	// quota) is reached in 5 steps without the quota; the rates are low and
	// the SLO wide so that a loaded test machine keeps up: the quota shows
	// as a rate limit (a backlog growing during the step).
	cp, logs := capacityRunner(t, c.Bootstrap(), `
  - name: cap-quota
    record_size: 1000
    create_topic: {partitions: 1, replication_factor: 1}
    producer: {linger.ms: 10}
    capacity: {interval: 1h, step_duration: 3s, start_rate: 300, growth: 1.25, max_rate: 650, latency_slo: 3s}
`)
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Bootstrap()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	clientID := capacity.ClientID(config.DefaultClientID, probe)
	setQuota := func(remove bool) {
		t.Helper()
		entity := kadm.ClientQuotaEntity{{Type: "client-id", Name: &clientID}}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		resp, err := adm.AlterClientQuotas(ctx, []kadm.AlterClientQuotaEntry{{Entity: entity,
			Ops: []kadm.AlterClientQuotaOp{{Key: "producer_byte_rate", Value: quota, Remove: remove}}}})
		if err == nil && len(resp) > 0 {
			err = resp[0].Err
		}
		if err != nil {
			t.Fatalf("altering the quota of %s: %v", clientID, err)
		}
		probetest.Eventually(t, 30*time.Second, "the quota change to be visible", func() (bool, string) {
			qs, err := adm.DescribeClientQuotas(ctx, true, []kadm.DescribeClientQuotaComponent{{Type: "client-id", MatchName: &clientID}})
			if err != nil {
				return false, err.Error()
			}
			return (len(qs) == 0) == remove, fmt.Sprint(qs)
		})
	}
	run := func(what string) capacity.Result {
		t.Helper()
		start := time.Now()
		res := cp.RunOnce(context.Background())
		t.Logf("%s: %s, limit %s, %.0f bytes/s, p99 %s, %d steps, in %s", what, res.Result, res.Limit,
			res.BytesPerSecond, res.P99, len(res.Steps), time.Since(start).Round(time.Second))
		if res.Result != capacity.ResultOK {
			t.Fatalf("%s: result %+v, want ok\n%s", what, res, logs)
		}
		return res
	}

	free := run("unthrottled")
	setQuota(false)
	throttled := run("quota 500 kB/s")
	setQuota(true)
	recovered := run("quota removed")

	if d := throttled.BytesPerSecond/quota - 1; d < -0.15 || d > 0.15 {
		t.Errorf("capacity under the quota = %.0f bytes/s, want within 15 %% of %.0f", throttled.BytesPerSecond, quota)
	}
	// A passing step achieves at least 95 % of its target: more than
	// quota / 0.95 is an overshoot.
	if throttled.BytesPerSecond > quota/0.95 {
		t.Errorf("capacity under the quota = %.0f bytes/s: above the quota by more than a passing step's shortfall", throttled.BytesPerSecond)
	}
	for _, want := range []string{"shorter than the brokers' quota window", "quota_window=11s", "hold=true"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, logs)
		}
	}
	if throttled.BytesPerSecond >= free.BytesPerSecond {
		t.Errorf("capacity under the quota %.0f bytes/s is not below the unthrottled %.0f", throttled.BytesPerSecond, free.BytesPerSecond)
	}
	if recovered.BytesPerSecond <= 1.15*quota {
		t.Errorf("capacity after removing the quota = %.0f bytes/s, want it back above %.0f", recovered.BytesPerSecond, 1.15*quota)
	}
}
