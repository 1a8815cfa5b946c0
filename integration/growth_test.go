package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/kafka-bench/kafka_bench_exporter/internal/exportertest"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

// Partitions added while a probe runs (3 → 6 at 100 records/s, with
// auto.offset.reset latest, the consumer held meanwhile): no record fails
// (reason other: a partition its client does not know yet), lag covers the
// added partitions from their start, the consumer reads them from their
// start (nothing lost), and end-to-end p99 over 20 s from 30 s after the
// growth is below 1 s.
func TestPartitionsAddedWhileRunning(t *testing.T) {
	c := cluster(t, 1)
	ensureRunning(t, c)
	const probe, topic = "grow", "kafka-bench-grow"
	x := exportertest.Start(t, `
probes:
  - name: grow
    rate: 100
    record_size: 100
    lag_interval: 1s
    create_topic: {partitions: 3, replication_factor: 1}
    consumer: {auto.offset.reset: latest}
`, c.Bootstrap())
	x.WaitReady(t, 60*time.Second)
	waitCaughtUp(t, x, probe, 5)
	adm := admin(t, c)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	ends := func() map[int32]int64 {
		t.Helper()
		listed, err := adm.ListEndOffsets(ctx, topic)
		if err == nil {
			err = listed.Error()
		}
		if err != nil {
			t.Fatal(err)
		}
		out := map[int32]int64{}
		listed.Each(func(o kadm.ListedOffset) { out[o.Partition] = o.Offset })
		return out
	}

	x.Probe(probe).HoldConsumers(true)
	time.Sleep(200 * time.Millisecond) // the poll in progress ends
	atHold := ends()
	resp, err := adm.UpdatePartitions(ctx, 6, topic)
	if err == nil {
		err = resp.Error()
	}
	if err != nil {
		t.Fatalf("adding partitions: %v", err)
	}
	grown := time.Now()

	// Held, the consumer has neither read nor committed the added
	// partitions: both views of lag count them from their start. The
	// gauges are up to a lag interval old: 150 records of slack at 100/s.
	probetest.Eventually(t, 45*time.Second, "lag to cover the added partitions", func() (bool, string) {
		now := ends()
		var want, added int64
		for part, end := range now {
			want += end - atHold[part] // atHold has no added partition: 0
			if part >= 3 {
				added += end
			}
		}
		f := x.Scrape(t)
		lag, glag := value(t, f, "kafka_bench_consumer_lag_records", probe), value(t, f, "kafka_bench_consumer_group_lag_records", probe)
		ok := added >= 400 && lag >= float64(want-150) && glag >= float64(want-150)
		return ok, fmt.Sprintf("records in added partitions=%d, unread=%d, lag_records=%v, group_lag_records=%v", added, want, lag, glag)
	})
	x.Probe(probe).HoldConsumers(false)

	time.Sleep(time.Until(grown.Add(30 * time.Second)))
	a := x.Scrape(t)
	time.Sleep(20 * time.Second)
	b := x.Scrape(t)
	const e2e = "kafka_bench_end_to_end_latency_seconds"
	n := value(t, b, e2e, probe) - value(t, a, e2e, probe)
	within1s := float64(b.BucketCount(e2e, 1, "probe", probe) - a.BucketCount(e2e, 1, "probe", probe))
	t.Logf("end-to-end from 30 s to 50 s after the growth: %v records, %v of them within 1 s", n, within1s)
	if n < 1000 || n-within1s > 0.01*n {
		t.Errorf("end-to-end p99 >= 1 s or too few records from 30 s after the growth: %v records, %v above 1 s", n, n-within1s)
	}

	f := drain(t, x, probe)
	assertCounters(t, f, probe, clean)
	if failed := failuresByReason(f, probe); len(failed) > 0 {
		t.Errorf("produce failures after partitions were added: %v", failed)
	}
	if p, c := value(t, f, "kafka_bench_produced_records_total", probe), value(t, f, "kafka_bench_consumed_records_total", probe); p != c {
		t.Errorf("consumed %v != produced %v", c, p)
	}
	final := ends()
	for part := int32(3); part < 6; part++ {
		if final[part] == 0 {
			t.Errorf("nothing written to added partition %d: %v", part, final)
		}
	}
}
