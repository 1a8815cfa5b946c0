package run

import (
	"context"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/bench/result"
	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/probes"
)

// TestRecorderPercentiles records 1 µs … 100,000 µs once each, in random
// order: every percentile is known exactly (HdrHistogram ranks round(q·n)).
func TestRecorderPercentiles(t *testing.T) {
	const n = 100000
	s := uniformRecorder(n).ProduceSpan()
	want := result.Latencies{
		Avg:  50000500 * time.Nanosecond, // (n+1)/2 µs, exact
		Max:  100 * time.Millisecond,
		P50:  50 * time.Millisecond,
		P95:  95 * time.Millisecond,
		P99:  99 * time.Millisecond,
		P999: 99900 * time.Microsecond,
	}
	if sum := s.Latency.Sum(); sum != n*(n+1)/2*time.Microsecond {
		t.Errorf("sum %v, want %v", sum, n*(n+1)/2*time.Microsecond)
	}
	l := s.Latency
	// The spectrum (TestSpectrum) and histogram (TestMergeEqualsAllValues)
	// are checked on their own.
	got := result.Latencies{Avg: l.Avg, Max: l.Max, P50: l.P50, P95: l.P95, P99: l.P99, P999: l.P999}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("latencies\n got %+v\nwant %+v", got, want)
	}
	if s.Records != n || s.Bytes != 100*n {
		t.Errorf("records %d bytes %d, want %d and %d", s.Records, s.Bytes, n, 100*n)
	}
}

// uniformRecorder has produced 1 µs … n µs once each, in random order,
// 100 bytes each.
func uniformRecorder(n int) *Recorder {
	r := NewRecorder(0, false, 0)
	for _, v := range rand.Perm(n) {
		r.Produced(time.Now(), time.Duration(v+1)*time.Microsecond, 100, probes.RecordID{})
	}
	return r
}

// TestRecorderTail: a rare slow record must show at p99.9 and as the max,
// to the microsecond, where ProducerPerformance's whole-ms sample could not.
func TestRecorderTail(t *testing.T) {
	r := NewRecorder(0, false, 0)
	for range 998 {
		r.Produced(time.Now(), 1234*time.Microsecond, 10, probes.RecordID{})
	}
	r.Produced(time.Now(), 250123*time.Microsecond, 10, probes.RecordID{})
	r.Produced(time.Now(), 250124*time.Microsecond, 10, probes.RecordID{})
	l := r.ProduceSpan().Latency
	if l.P50 != 1234*time.Microsecond || l.P99 != 1234*time.Microsecond {
		t.Errorf("p50 %v p99 %v, want 1.234ms", l.P50, l.P99)
	}
	if l.P999 != 250123*time.Microsecond || l.Max != 250124*time.Microsecond {
		t.Errorf("p99.9 %v max %v, want 250.123ms and 250.124ms", l.P999, l.Max)
	}
}

func TestRecorderWarmup(t *testing.T) {
	r := NewRecorder(3, false, 0)
	t0 := time.Unix(1700000000, 0)
	for i := 1; i <= 5; i++ {
		if closed := isClosed(r.WarmedUp()); closed != (i > 3) {
			t.Fatalf("before record %d: warmed up = %v", i, closed)
		}
		// acknowledged a millisecond apart, each i·10 ms after its send
		r.Produced(t0.Add(time.Duration(i)*time.Millisecond), time.Duration(i)*10*time.Millisecond, 1, probes.RecordID{})
	}
	s := r.ProduceSpan()
	if r.Acked() != 5 || s.Records != 2 || s.Latency.Max != 50*time.Millisecond || s.Latency.P50 != 40*time.Millisecond {
		t.Errorf("acked %d measured %d max %v p50 %v; want 5, 2 (warm-up skipped), 50ms, 40ms", r.Acked(), s.Records, s.Latency.Max, s.Latency.P50)
	}
	// The span runs from the earliest send of a measured record (the
	// fifth: 5 ms − 50 ms) to the last acknowledgement (5 ms).
	if want := 50 * time.Millisecond; s.Last.Sub(s.First) != want {
		t.Errorf("span %v, want %v (from the earliest send time)", s.Last.Sub(s.First), want)
	}

	for range 3 {
		r.Consumed(time.Now(), time.Millisecond, 1, true, probes.RecordID{})
	}
	r.Consumed(time.Now(), 0, 1, false, probes.RecordID{}) // another run's record: not counted
	r.Consumed(time.Now(), 7*time.Millisecond, 1, true, probes.RecordID{})
	c, warmEnd := r.ConsumeSpan()
	if r.ConsumedTotal() != 4 || c.Records != 1 || c.Latency.P50 != 7*time.Millisecond || warmEnd.IsZero() {
		t.Errorf("consumed %d measured %d e2e p50 %v warm-up end %v; want 4, 1, 7ms, set", r.ConsumedTotal(), c.Records, c.Latency.P50, warmEnd)
	}
}

// TestRecorderAllRecords: consume-only counts records of other runs, up to
// its limit, and records no end-to-end latency for them.
func TestRecorderAllRecords(t *testing.T) {
	r := NewRecorder(0, true, 2)
	r.Consumed(time.Now(), 0, 10, false, probes.RecordID{})
	r.Consumed(time.Now(), 0, 10, false, probes.RecordID{})
	r.Consumed(time.Now(), 0, 10, false, probes.RecordID{}) // past the limit
	c, _ := r.ConsumeSpan()
	if c.Records != 2 || c.Bytes != 20 || !reflect.DeepEqual(c.Latency, result.Latencies{}) || r.ConsumedTotal() != 2 {
		t.Errorf("records %d (total %d) bytes %d latency %+v; want 2, 20, none", c.Records, r.ConsumedTotal(), c.Bytes, c.Latency)
	}
}

func TestRecorderWindow(t *testing.T) {
	r := NewRecorder(0, false, 0)
	r.Produced(time.Now(), 2*time.Millisecond, 100, probes.RecordID{})
	r.Produced(time.Now(), 4*time.Millisecond, 100, probes.RecordID{})
	w := r.ProduceWindow()
	if w != (Window{Records: 2, Bytes: 200, AvgLatency: 3 * time.Millisecond, MaxLatency: 4 * time.Millisecond}) {
		t.Errorf("window %+v", w)
	}
	if w := r.ProduceWindow(); w != (Window{}) {
		t.Errorf("second window %+v, want empty (reset)", w)
	}
	if s := r.ProduceSpan(); s.Records != 2 {
		t.Errorf("span records %d, want 2: windows do not reset the totals", s.Records)
	}
}

// TestRecorderConcurrent is meant for -race: promises and consumers call
// the recorder at once while progress reads windows.
func TestRecorderConcurrent(t *testing.T) {
	r := NewRecorder(10, false, 0)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for range 1000 {
				r.Produced(time.Now(), time.Millisecond, 1, probes.RecordID{})
			}
		}()
		go func() {
			defer wg.Done()
			for i := range 1000 {
				r.Consumed(time.Now(), time.Millisecond, 1, true, probes.RecordID{})
				if i%100 == 0 {
					r.ProduceWindow()
					r.ConsumeWindow()
				}
			}
		}()
	}
	wg.Wait()
	p, c := r.ProduceSpan(), func() Span { s, _ := r.ConsumeSpan(); return s }()
	if r.Acked() != 4000 || p.Records != 3990 || r.ConsumedTotal() != 4000 || c.Records != 3990 {
		t.Errorf("acked %d/%d measured, consumed %d/%d measured; want 4000/3990 each", r.Acked(), p.Records, r.ConsumedTotal(), c.Records)
	}
}

// TestRecorderFailed: failures of every reason add up, warm-up included,
// and count neither as acknowledged nor as measured.
func TestRecorderFailed(t *testing.T) {
	r := NewRecorder(1, false, 0)
	r.Failed("timeout", 2)
	r.Failed("behind_schedule", 5)
	r.Produced(time.Now(), time.Millisecond, 1, probes.RecordID{})
	if r.FailedTotal() != 7 || r.Acked() != 1 || r.ProduceSpan().Records != 0 {
		t.Errorf("failed %d acked %d measured %d; want 7, 1, 0", r.FailedTotal(), r.Acked(), r.ProduceSpan().Records)
	}
}

// The recorder keeps which records were acknowledged and read; a single
// process's loss and duplicates follow from them.
func TestRecorderAccounting(t *testing.T) {
	r := NewRecorder(0, false, 0)
	for seq := range uint64(5) {
		r.Produced(time.Now(), time.Millisecond, 1, probes.RecordID{Run: 7, Partition: 1, Seq: seq})
	}
	for _, seq := range []uint64{0, 1, 1, 3} { // 2 and 4 never read, 1 twice
		r.Consumed(time.Now(), time.Millisecond, 1, true, probes.RecordID{Run: 7, Partition: 1, Seq: seq})
	}
	r.Consumed(time.Now(), 0, 1, false, probes.RecordID{}) // another run's: not accounted
	a := r.Accounting()
	if lost, dups := result.Tally([]*result.Accounting{a}); lost != 2 || dups != 1 || a.Duplicates != 1 || a.Reads != 5 {
		t.Errorf("lost %d, duplicates %d (recorded %d), reads %d; want 2, 1 and 5 reads", lost, dups, a.Duplicates, a.Reads)
	}
}

// The drain waits for every acknowledged record, each read at least once:
// 10 acknowledged, 9 read plus a duplicate is not done (it used to end the
// drain and report the tenth lost), and loss is reported only once
// drain_timeout passed without progress.
func TestDrainCountsDistinctRecords(t *testing.T) {
	rec := NewRecorder(0, false, 0)
	id := func(seq uint64) probes.RecordID { return probes.RecordID{Run: 7, Partition: 0, Seq: seq} }
	for seq := range uint64(10) {
		rec.Produced(time.Now(), time.Millisecond, 10, id(seq))
	}
	for seq := range uint64(9) {
		rec.Consumed(time.Now(), time.Millisecond, 10, true, id(seq))
	}
	rec.Consumed(time.Now(), time.Millisecond, 10, true, id(3)) // a re-read
	d := &driver{b: &spec.Bench{DrainTimeout: 200 * time.Millisecond}, rec: rec, ctx: context.Background(),
		exited: make(chan struct{})}
	err := d.drain()
	if err == nil || !strings.Contains(err.Error(), "read 9 of 10 records") {
		t.Fatalf("drain with 9 of 10 read and a duplicate: %v, want the drain_timeout error after 9 of 10", err)
	}
	rec.Consumed(time.Now(), time.Millisecond, 10, true, id(9))
	if err := d.drain(); err != nil {
		t.Fatalf("drain with all 10 read: %v", err)
	}
	if lost, dups := result.Tally([]*result.Accounting{rec.Accounting()}); lost != 0 || dups != 1 {
		t.Errorf("tally: lost %d duplicates %d, want 0 and 1", lost, dups)
	}
}

// Records skipped unsent (behind_schedule) are failures but were never in
// flight: the produce phase ends when every record sent has ended.
func TestSkippedRecordsNotInFlight(t *testing.T) {
	rec := NewRecorder(0, false, 0)
	rec.Failed(probes.ReasonBehindSchedule, 4)
	for seq := range uint64(6) {
		rec.Produced(time.Now(), time.Millisecond, 10, probes.RecordID{Run: 7, Seq: seq})
	}
	rec.Failed(probes.ReasonTimeout, 1)
	if got := rec.SentEnded(); got != 7 {
		t.Errorf("6 acknowledged, 1 failed in flight, 4 skipped unsent: %d sent records ended, want 7", got)
	}
	if got := rec.FailedTotal(); got != 5 {
		t.Errorf("failed total %d, want 5 (skipped records are failures)", got)
	}
}
