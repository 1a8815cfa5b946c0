package main

import (
	"math"
	"strings"
	"testing"

	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
)

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{{[]float64{3}, 3}, {[]float64{5, 1, 3}, 3}, {[]float64{4, 1, 3, 2}, 2.5}, {[]float64{120581, 116657, 190083}, 120581}} {
		in := append([]float64(nil), c.in...)
		if got := median(c.in); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.in, got, c.want)
		}
		for i := range in {
			if in[i] != c.in[i] {
				t.Errorf("median reordered its input: %v", c.in)
			}
		}
	}
	if !math.IsNaN(median(nil)) || !math.IsNaN(ratio(1, 0)) {
		t.Error("median of nothing or a ratio over 0 is a number")
	}
}

// Two scrapes of a histogram with two series (partition leaders): the
// window is their difference, summed over the series.
const (
	scrapeBefore = `# TYPE lat histogram
lat_bucket{broker="1",le="0.01"} 90
lat_bucket{broker="1",le="0.05"} 99
lat_bucket{broker="1",le="0.25"} 100
lat_bucket{broker="1",le="+Inf"} 100
lat_sum{broker="1"} 1
lat_count{broker="1"} 100
lat_bucket{broker="2",le="0.01"} 0
lat_bucket{broker="2",le="0.05"} 0
lat_bucket{broker="2",le="0.25"} 0
lat_bucket{broker="2",le="+Inf"} 0
lat_sum{broker="2"} 0
lat_count{broker="2"} 0
`
	// In the window: broker 1 800 <= 10 ms, 90 in (10, 50] ms, 50 in
	// (50, 250] ms; broker 2 40 in (10, 50] ms, 20 above 250 ms. 1000 in all.
	scrapeAfter = `# TYPE lat histogram
lat_bucket{broker="1",le="0.01"} 890
lat_bucket{broker="1",le="0.05"} 989
lat_bucket{broker="1",le="0.25"} 1040
lat_bucket{broker="1",le="+Inf"} 1040
lat_sum{broker="1"} 10
lat_count{broker="1"} 1040
lat_bucket{broker="2",le="0.01"} 0
lat_bucket{broker="2",le="0.05"} 40
lat_bucket{broker="2",le="0.25"} 40
lat_bucket{broker="2",le="+Inf"} 60
lat_sum{broker="2"} 5
lat_count{broker="2"} 60
`
)

func parse(t *testing.T, text string) scrape.Families {
	t.Helper()
	f, err := scrape.Parse(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestWindowQuantiles(t *testing.T) {
	bs := windowBuckets(parse(t, scrapeBefore), parse(t, scrapeAfter), "lat")
	want := []bucket{{0.01, 800}, {0.05, 930}, {0.25, 980}, {math.Inf(1), 1000}}
	if len(bs) != len(want) {
		t.Fatalf("windowBuckets = %v, want %v", bs, want)
	}
	for i := range want {
		if bs[i] != want[i] {
			t.Fatalf("windowBuckets = %v, want %v", bs, want)
		}
	}
	for _, c := range []struct {
		q, bound, quantile float64
	}{
		{0.5, 0.01, 0.01 * 500 / 800},
		{0.9, 0.05, 0.01 + 0.04*100/130},
		{0.95, 0.25, 0.05 + 0.2*20/50},
		{0.99, math.Inf(1), 0.25}, // in +Inf: the highest finite bound
		{1, math.Inf(1), 0.25},
	} {
		if got := bucketBound(bs, c.q); got != c.bound {
			t.Errorf("bucketBound(%v) = %v, want %v", c.q, got, c.bound)
		}
		if got := quantile(bs, c.q); math.Abs(got-c.quantile) > 1e-12 {
			t.Errorf("quantile(%v) = %v, want %v", c.q, got, c.quantile)
		}
	}
	empty := windowBuckets(parse(t, scrapeBefore), parse(t, scrapeBefore), "lat")
	if !math.IsNaN(bucketBound(empty, 0.99)) || !math.IsNaN(quantile(empty, 0.99)) {
		t.Error("a window without observations has a quantile")
	}
	if got := windowBuckets(parse(t, scrapeBefore), parse(t, scrapeAfter), "other"); len(got) != 0 {
		t.Errorf("windowBuckets of a missing family = %v", got)
	}
}

func TestEmbeddedRow(t *testing.T) {
	before := parse(t, strings.ReplaceAll(scrapeBefore, "lat", "kafka_bench_produce_latency_seconds")+`# TYPE kafka_bench_produced_records_total counter
kafka_bench_produced_records_total{broker="1"} 100
kafka_bench_produced_records_total{broker="2"} 0
# TYPE process_cpu_seconds_total counter
process_cpu_seconds_total 2
`)
	after := parse(t, strings.ReplaceAll(scrapeAfter, "lat", "kafka_bench_produce_latency_seconds")+`# TYPE kafka_bench_produced_records_total counter
kafka_bench_produced_records_total{broker="1"} 1040
kafka_bench_produced_records_total{broker="2"} 60
# TYPE kafka_bench_consumed_records_total counter
kafka_bench_consumed_records_total 990
# TYPE kafka_bench_records_lost_total counter
kafka_bench_records_lost_total 0
# TYPE kafka_bench_records_duplicated_total counter
kafka_bench_records_duplicated_total 3
# TYPE process_cpu_seconds_total counter
process_cpu_seconds_total 3
# TYPE process_resident_memory_bytes gauge
process_resident_memory_bytes 1.048576e+08
`)
	got := embeddedTableRow(100, 10, before, after)
	want := "| 100 | 10 | 100.0 | 1.0000 | 99.0 | 0 | 3 | 0.100 | 100 | ≤ +Inf |"
	if got != want {
		t.Errorf("embeddedTableRow =\n%s, want\n%s", got, want)
	}
}

func TestReplicationRow(t *testing.T) {
	fam := func(text string) string {
		return strings.ReplaceAll(text, "lat", "kafka_bench_replication_latency_seconds") +
			strings.ReplaceAll(text, "lat", "kafka_bench_end_to_end_latency_seconds")
	}
	before := parse(t, fam(scrapeBefore)+`# TYPE kafka_bench_replication_consumed_records_total counter
kafka_bench_replication_consumed_records_total 100
`)
	after := parse(t, fam(scrapeAfter)+`# TYPE kafka_bench_replication_consumed_records_total counter
kafka_bench_replication_consumed_records_total 1100
# TYPE kafka_bench_replication_lag_records gauge
kafka_bench_replication_lag_records{partition="0"} 2
kafka_bench_replication_lag_records{partition="1"} 1
# TYPE kafka_bench_replication_records_lost_total counter
kafka_bench_replication_records_lost_total 0
# TYPE kafka_bench_replication_records_duplicated_total counter
kafka_bench_replication_records_duplicated_total 0
`)
	// p50 at rank 500 of 800 in (0, 10] ms; p99 and max in +Inf: 250 ms.
	want := "| 200 | 5 | 1000 | 6.2 | 250.0 | 250.0 | ≤ 250.0 | 250.0 | 3 | 0 | 0 |"
	if got := replicationTableRow(200, 5, before, after); got != want {
		t.Errorf("replicationTableRow =\n%s, want\n%s", got, want)
	}
}
