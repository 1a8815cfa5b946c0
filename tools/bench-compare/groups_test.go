package main

import (
	"bytes"
	"encoding/binary"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
)

func frame(body string) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(len(body)))
	return append(b, body...)
}

func TestCountRequests(t *testing.T) {
	var in []byte
	for _, body := range []string{"\x00\x09\x00\x08 offset fetch", "", strings.Repeat("x", 100_000), "\x00\x02 list offsets"} {
		in = append(in, frame(body)...)
	}
	var out bytes.Buffer
	n := 0
	// One byte a read: frames split anywhere are still whole requests.
	if err := countRequests(iotest.OneByteReader(bytes.NewReader(in)), &out, func() { n++ }); err != nil {
		t.Fatal(err)
	}
	if n != 4 {
		t.Errorf("counted %d requests, want 4", n)
	}
	if !bytes.Equal(out.Bytes(), in) {
		t.Errorf("forwarded %d bytes that differ from the %d sent", out.Len(), len(in))
	}
	// A connection cut in the middle of a request is an error, not a count.
	n = 0
	err := countRequests(bytes.NewReader(in[:len(in)-3]), io.Discard, func() { n++ })
	if err == nil || n != 3 {
		t.Errorf("cut request: err %v after %d requests, want an error after 3", err, n)
	}
}

func TestCompareLags(t *testing.T) {
	want := map[lagKey]int64{{"g1", "t", 0}: 5, {"g1", "t", 1}: 0, {"g2", "t", 0}: 3}
	got := map[lagKey]float64{{"g1", "t", 0}: 5, {"g1", "t", 1}: 1, {"g3", "t", 0}: 0}
	equal, wrong := compareLags(want, got)
	if equal != 1 {
		t.Errorf("equal = %d, want 1", equal)
	}
	joined := strings.Join(wrong, "\n")
	for _, s := range []string{"g1 t/1: 1, want 0", "g2 t/0: missing (want 3)", "g3 t/0: 0, not committed"} {
		if !strings.Contains(joined, s) {
			t.Errorf("differences %q lack %q", joined, s)
		}
	}
}

// The default layout: 500 groups cover every partition of 500 topics of 4
// (2,000), some lags 0 and most not.
func TestGroupLayoutCoversPartitions(t *testing.T) {
	topics, partitions, perGroup := 500, 4, 2
	g := &groupsRun{topics: &topics, partitions: &partitions, perGroup: &perGroup}
	covered := map[int]int{}
	zero, lagged := 0, 0
	for i := range 500 {
		for _, tp := range g.groupTopics(i) {
			covered[tp]++
			for p := range partitions {
				end := int64(recordsIn(tp, p))
				switch l := lagOf(i, tp, p, end); {
				case l < 0 || l > end:
					t.Fatalf("group %d topic %d partition %d: lag %d outside 0..%d", i, tp, p, l, end)
				case l == 0:
					zero++
				default:
					lagged++
				}
			}
		}
	}
	if len(covered) != topics {
		t.Errorf("500 groups cover %d topics, want %d", len(covered), topics)
	}
	if zero == 0 || lagged < zero {
		t.Errorf("%d group-partitions at lag 0, %d lagging: want some of each, mostly lagging", zero, lagged)
	}
}

func TestOursPolls(t *testing.T) {
	metric, last := "kafka_bench_group_poll_duration_seconds", "kafka_bench_group_poll_last_success_timestamp_seconds"
	g := &groupsRun{pollMetric: &metric, pollLast: &last}
	parse := func(s string) scrape.Families {
		f, err := scrape.Parse(strings.NewReader(s))
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	gauge := func(d, ts float64) scrape.Families {
		return parse("# TYPE " + metric + " gauge\n" + metric + " " + ftoa(d) + "\n# TYPE " + last + " gauge\n" + last + " " + ftoa(ts) + "\n")
	}
	// A gauge: the median of the durations scraped, polls by the timestamp.
	polls, secs, err := g.oursPolls([]scrape.Families{gauge(9, 1000), gauge(0.2, 1010), gauge(0.4, 1020), gauge(0.3, 1030)}, 10*time.Second)
	if err != nil || polls != 3 || secs != 0.3 {
		t.Errorf("gauge: %v polls of %v s (%v), want 3 of 0.3 s", polls, secs, err)
	}
	if _, _, err := g.oursPolls([]scrape.Families{gauge(0.2, 1000), gauge(0.2, 1000)}, 10*time.Second); err == nil {
		t.Error("no poll in the window: no error")
	}
	// A histogram: count and mean over the window.
	hist := func(count int, sum float64) scrape.Families {
		return parse("# TYPE " + metric + " histogram\n" + metric + `_bucket{le="+Inf"} ` + ftoa(float64(count)) + "\n" +
			metric + "_sum " + ftoa(sum) + "\n" + metric + "_count " + ftoa(float64(count)) + "\n")
	}
	polls, secs, err = g.oursPolls([]scrape.Families{hist(2, 1), hist(6, 3)}, 10*time.Second)
	if err != nil || polls != 4 || secs != 0.5 {
		t.Errorf("histogram: %v polls of %v s (%v), want 4 of 0.5 s", polls, secs, err)
	}
}

func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
