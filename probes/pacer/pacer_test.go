package pacer

import (
	"context"
	"errors"
	"math"
	"math/big"
	"testing"
	"time"
)

// fakeClock's SleepUntil advances fake time instead of sleeping.
type fakeClock struct {
	now    time.Time
	sleeps int
}

func (c *fakeClock) Now() time.Time { return c.now }

func (c *fakeClock) SleepUntil(ctx context.Context, t time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.sleeps++
	if t.After(c.now) {
		c.now = t
	}
	return nil
}

var epoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// exactOffset is i/rate in nanoseconds, truncated, computed with exact
// rational arithmetic as the reference for Intended.
func exactOffset(i uint64, rate string) time.Duration {
	r, ok := new(big.Rat).SetString(rate)
	if !ok {
		panic(rate)
	}
	q := new(big.Rat).SetFrac(new(big.Int).SetUint64(i), big.NewInt(1))
	q.Mul(q, big.NewRat(1e9, 1))
	q.Quo(q, r)
	return time.Duration(new(big.Int).Quo(q.Num(), q.Denom()).Int64())
}

func TestIntendedExact(t *testing.T) {
	tests := []struct {
		rate string
		rf   float64
	}{
		{"1", 1},
		{"1000", 1000},
		{"33333.3", 33333.3},
	}
	for _, tt := range tests {
		t.Run(tt.rate, func(t *testing.T) {
			p := New(&fakeClock{now: epoch}, epoch, tt.rf, 1)
			for _, i := range []uint64{0, 1, 2, 3, 999, 1000, 33333, 123457, 999_999, 1_000_000} {
				got := p.Intended(i).Sub(epoch)
				want := exactOffset(i, tt.rate)
				if d := got - want; d < -1 || d > 1 {
					t.Errorf("Intended(%d) = %v, want %v (off by %v)", i, got, want, d)
				}
			}
		})
	}
}

// TestNoDrift walks 1e6 records through Wait with a sleeping fake clock and
// checks every handed-out record is due and the schedule ends where the
// formula says, i.e. sleeping and batching never accumulate error.
func TestNoDrift(t *testing.T) {
	for _, rate := range []float64{1, 1000, 33333.3} {
		clk := &fakeClock{now: epoch}
		p := New(clk, epoch, rate, 1)
		ctx := context.Background()
		const total = 1_000_000
		for p.Next() < total {
			first, n, err := p.Wait(ctx, 1)
			if err != nil {
				t.Fatal(err)
			}
			if n != 1 || first != p.Next()-1 {
				t.Fatalf("rate %v: Wait = (%d, %d), want one record", rate, first, n)
			}
			if it := p.Intended(first); !it.Equal(clk.now) {
				t.Fatalf("rate %v: record %d handed out at %v, intended %v", rate, first, clk.now, it)
			}
		}
		want := epoch.Add(exactOffset(total-1, map[float64]string{1: "1", 1000: "1000", 33333.3: "33333.3"}[rate]))
		if d := clk.now.Sub(want); d < -1 || d > 1 {
			t.Fatalf("rate %v: after %d records clock at %v, want %v", rate, total, clk.now, want)
		}
	}
}

func TestCatchUpAfterStall(t *testing.T) {
	clk := &fakeClock{now: epoch}
	p := New(clk, epoch, 1000, 1) // 1 ms apart
	ctx := context.Background()

	if first, n, _ := p.Wait(ctx, 100); first != 0 || n != 1 {
		t.Fatalf("first Wait = (%d, %d), want (0, 1)", first, n)
	}
	// A 250 ms stall: records 1..250 are due (250 at exactly +250ms).
	clk.now = epoch.Add(250 * time.Millisecond)
	if got := p.Behind(clk.now); got != 249*time.Millisecond {
		t.Fatalf("Behind = %v, want 249ms", got)
	}
	sleeps := clk.sleeps
	var got []uint64
	for p.Next() <= 250 {
		first, n, err := p.Wait(ctx, 100)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, first, n)
	}
	want := []uint64{1, 100, 101, 100, 201, 50}
	if len(got) != len(want) {
		t.Fatalf("batches = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("batches = %v, want %v", got, want)
		}
	}
	if clk.sleeps != sleeps {
		t.Fatal("Wait slept while records were due")
	}
	// Catch-up keeps intended times: record 150 is still at +150 ms.
	if it := p.Intended(150); !it.Equal(epoch.Add(150 * time.Millisecond)) {
		t.Fatalf("Intended(150) = %v", it)
	}
	if b := p.Behind(clk.now); b != 0 {
		t.Fatalf("Behind after catch-up = %v, want 0", b)
	}
	// The next record is 1 ms ahead: Wait sleeps exactly to it.
	first, n, _ := p.Wait(ctx, 100)
	if first != 251 || n != 1 || !clk.now.Equal(epoch.Add(251*time.Millisecond)) {
		t.Fatalf("Wait = (%d, %d) at %v, want (251, 1) at +251ms", first, n, clk.now.Sub(epoch))
	}
}

func TestBehind(t *testing.T) {
	p := New(&fakeClock{now: epoch}, epoch, 10, 1) // 100 ms apart
	tests := []struct {
		now  time.Duration
		want time.Duration
	}{
		{-time.Second, 0},
		{0, 0},
		{time.Millisecond, time.Millisecond},
		{3 * time.Second, 3 * time.Second},
	}
	for _, tt := range tests {
		if got := p.Behind(epoch.Add(tt.now)); got != tt.want {
			t.Errorf("Behind(+%v) = %v, want %v", tt.now, got, tt.want)
		}
	}
}

func TestSkipTo(t *testing.T) {
	clk := &fakeClock{now: epoch}
	p := New(clk, epoch, 1000, 1)
	clk.now = epoch.Add(10 * time.Second) // 10001 records due

	if got := p.SkipTo(epoch.Add(9 * time.Second)); got != 9000 {
		t.Fatalf("SkipTo(+9s) dropped %d, want 9000 (records 0..8999)", got)
	}
	if p.Next() != 9000 {
		t.Fatalf("Next = %d, want 9000", p.Next())
	}
	if got := p.Behind(clk.now); got != time.Second {
		t.Fatalf("Behind = %v, want 1s", got)
	}
	if got := p.SkipTo(epoch.Add(5 * time.Second)); got != 0 {
		t.Fatalf("SkipTo into the past dropped %d, want 0", got)
	}
	first, n, err := p.Wait(context.Background(), 5000)
	if err != nil || first != 9000 || n != 1001 {
		t.Fatalf("Wait after SkipTo = (%d, %d, %v), want (9000, 1001)", first, n, err)
	}
}

func TestUnlimited(t *testing.T) {
	for _, rate := range []float64{0, -5} {
		clk := &fakeClock{now: epoch}
		p := New(clk, epoch, rate, 1)
		for i := range uint64(3) {
			first, n, err := p.Wait(context.Background(), 64)
			if err != nil || first != i*64 || n != 64 {
				t.Fatalf("rate %v: Wait = (%d, %d, %v), want (%d, 64)", rate, first, n, err, i*64)
			}
		}
		if clk.sleeps != 0 {
			t.Fatalf("rate %v: unlimited pacer slept", rate)
		}
		if !p.Intended(1000).Equal(epoch) || p.Behind(epoch.Add(time.Hour)) != 0 || p.SkipTo(epoch.Add(time.Hour)) != 0 {
			t.Fatalf("rate %v: unlimited Intended/Behind/SkipTo not neutral", rate)
		}
	}
}

func TestZeroMaxBatch(t *testing.T) {
	clk := &fakeClock{now: epoch.Add(time.Second)}
	p := New(clk, epoch, 1000, 1)
	if _, n, _ := p.Wait(context.Background(), 0); n != 1 {
		t.Fatalf("Wait(maxBatch=0) n = %d, want 1", n)
	}
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	clk := &fakeClock{now: epoch}
	for _, rate := range []float64{0, 1} {
		p := New(clk, epoch.Add(time.Hour), rate, 1)
		if _, _, err := p.Wait(ctx, 10); !errors.Is(err, context.Canceled) {
			t.Fatalf("rate %v: Wait on cancelled ctx = %v", rate, err)
		}
		if p.Next() != 0 {
			t.Fatalf("rate %v: cancelled Wait advanced Next to %d", rate, p.Next())
		}
	}
}

func TestRealClockCancel(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	p := New(RealClock(), start.Add(time.Hour), 1, 1)
	_, _, err := p.Wait(ctx, 1)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait = %v, want deadline exceeded", err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("cancellation took %v", el)
	}
}

func TestRealClockPaces(t *testing.T) {
	start := time.Now()
	p := New(RealClock(), start, 100, 1) // 10 ms apart
	for p.Next() < 6 {
		first, n, err := p.Wait(context.Background(), 10)
		if err != nil {
			t.Fatal(err)
		}
		if now := time.Now(); now.Before(p.Intended(first + n - 1)) {
			t.Fatalf("record %d handed out %v early", first+n-1, p.Intended(first+n-1).Sub(now))
		}
	}
	if el := time.Since(start); el < 50*time.Millisecond {
		t.Fatalf("6 records at 100/s took %v, want >= 50ms", el)
	}
}

func BenchmarkWaitReal50k(b *testing.B) {
	p := New(RealClock(), time.Now(), 50_000, 64)
	ctx := context.Background()
	var sent uint64
	for b.Loop() {
		_, n, err := p.Wait(ctx, 64)
		if err != nil {
			b.Fatal(err)
		}
		sent += n
	}
	b.ReportMetric(float64(sent)/float64(b.N), "records/op")
}

// TestRounds: records of a round share its intended time, rounds are
// round/rate apart without drift, and one Wait hands out one whole round.
func TestRounds(t *testing.T) {
	for _, tt := range []struct {
		rate  string
		rf    float64
		round uint64
	}{{"30", 30, 3}, {"1000", 1000, 20}, {"33333.3", 33333.3, 667}} {
		clk := &fakeClock{now: epoch}
		p := New(clk, epoch, tt.rf, tt.round)
		ctx := context.Background()
		const rounds = 100_000
		for r := range uint64(rounds) {
			first, n, err := p.Wait(ctx, 1000)
			if err != nil {
				t.Fatal(err)
			}
			if first != r*tt.round || n != tt.round {
				t.Fatalf("rate %s: Wait = (%d, %d), want round %d = (%d, %d)", tt.rate, first, n, r, r*tt.round, tt.round)
			}
			it := p.Intended(first)
			if !it.Equal(clk.now) || !p.Intended(first+n-1).Equal(it) {
				t.Fatalf("rate %s: round %d handed out at %v, intended %v .. %v", tt.rate, r, clk.now, it, p.Intended(first+n-1))
			}
			// Record i of the round is intended at its round's time,
			// exactly: (first/round)*round/rate, not drifting.
			if d := it.Sub(epoch) - exactOffset(first, tt.rate); d < -1 || d > 1 {
				t.Fatalf("rate %s: round %d intended at +%v, want +%v", tt.rate, r, it.Sub(epoch), exactOffset(first, tt.rate))
			}
		}
	}
}

// TestRoundsCatchUp: after a stall, whole rounds are handed out maxBatch at a
// time with their own intended times, and SkipTo drops whole rounds.
func TestRoundsCatchUp(t *testing.T) {
	clk := &fakeClock{now: epoch}
	p := New(clk, epoch, 1000, 10) // rounds of 10 records, 10 ms apart
	ctx := context.Background()
	if first, n, _ := p.Wait(ctx, 100); first != 0 || n != 10 {
		t.Fatalf("first Wait = (%d, %d), want (0, 10)", first, n)
	}
	clk.now = epoch.Add(45 * time.Millisecond) // rounds 1..4 due
	if got := p.Behind(clk.now); got != 35*time.Millisecond {
		t.Fatalf("Behind = %v, want 35ms", got)
	}
	first, n, _ := p.Wait(ctx, 25)
	if first != 10 || n != 25 {
		t.Fatalf("Wait = (%d, %d), want (10, 25)", first, n)
	}
	if got := p.SkipTo(epoch.Add(40 * time.Millisecond)); got != 5 {
		t.Fatalf("SkipTo(+40ms) dropped %d, want 5 (the rest of round 3)", got)
	}
	first, n, _ = p.Wait(ctx, 100)
	if first != 40 || n != 10 || !p.Intended(49).Equal(epoch.Add(40*time.Millisecond)) {
		t.Fatalf("Wait = (%d, %d), want round 4 = (40, 10) at +40ms", first, n)
	}
	first, n, _ = p.Wait(ctx, 100)
	if first != 50 || n != 10 || !clk.now.Equal(epoch.Add(50*time.Millisecond)) {
		t.Fatalf("Wait = (%d, %d) at %v, want (50, 10) at +50ms", first, n, clk.now.Sub(epoch))
	}
}

// TestHugeRates: a rate beyond one record per nanosecond is paced at one
// record per nanosecond; the float estimate of dueBefore used to be 1e8
// rounds off at 1e17 records/s (a second per Wait) and to overflow uint64
// at 1e25 (a Wait that never returned).
func TestHugeRates(t *testing.T) {
	for _, rate := range []float64{1e9, 1e17, 1e25, math.MaxFloat64} {
		clk := &fakeClock{now: epoch.Add(time.Second)}
		p := New(clk, epoch, rate, 1)
		for range 3 {
			first, n, err := p.Wait(context.Background(), 1000)
			if err != nil || n != 1000 {
				t.Fatalf("rate %g: Wait = %d, %d, %v", rate, first, n, err)
			}
		}
		if got := p.SkipTo(clk.now); got != uint64(time.Second)-3000 {
			t.Errorf("rate %g: SkipTo(1s) skipped %d, want %d (one record per ns)", rate, got, uint64(time.Second)-3000)
		}
		if p.corrections > 8 {
			t.Errorf("rate %g: dueBefore took %d correction steps", rate, p.corrections)
		}
	}
}

// FuzzPacer: whatever the rate, round, elapsed time and batch, Wait and
// SkipTo return without spinning, hand out consecutive indexes, never a
// record before its intended time, and intended times never go backwards.
func FuzzPacer(f *testing.F) {
	f.Add(100.0, uint64(1), int64(time.Second), uint64(1))
	f.Add(1e17, uint64(1), int64(time.Second), uint64(1000))
	f.Add(1e25, uint64(20), int64(time.Hour), uint64(5))
	f.Add(1e-300, uint64(1), int64(math.MaxInt64), uint64(1))
	f.Add(33333.3, uint64(1<<40), int64(-time.Second), uint64(0))
	f.Add(math.NaN(), uint64(7), int64(0), uint64(3))
	f.Fuzz(func(t *testing.T, rate float64, round uint64, elapsed int64, maxBatch uint64) {
		maxBatch %= 1 << 20 // a batch is a slice of records in the producer
		clk := &fakeClock{now: epoch.Add(time.Duration(elapsed))}
		p := New(clk, epoch, rate, round)
		ctx := context.Background()
		var next uint64
		for i := range 4 {
			if i == 2 {
				next += p.SkipTo(clk.now)
			}
			first, n, err := p.Wait(ctx, maxBatch)
			if err != nil {
				t.Fatal(err)
			}
			if first != next || n < 1 || n > max(maxBatch, 1) {
				t.Fatalf("Wait = [%d, +%d), want first %d and 1 <= n <= %d", first, n, next, max(maxBatch, 1))
			}
			next = first + n
			if p.unlimited() {
				continue
			}
			last := p.Intended(first + n - 1)
			if last.After(clk.now) {
				t.Fatalf("record %d intended at %v handed out at %v", first+n-1, last, clk.now)
			}
			if first > 0 && p.Intended(first).Before(p.Intended(first-1)) {
				t.Fatalf("intended time of %d before that of %d", first, first-1)
			}
		}
		// Within 2^53 ns of start (104 days) a float holds every
		// nanosecond exactly: the estimate is off by a round or two.
		if elapsed < 1<<53 && elapsed > -1<<53 && p.corrections > 5*4 {
			t.Fatalf("dueBefore took %d correction steps in 5 calls", p.corrections)
		}
	})
}

// A rate so small that the time between two rounds overflows still starts
// at once: round 0 is intended at start and round 1 saturates, never NaN.
func TestTinyRates(t *testing.T) {
	for _, rate := range []float64{math.SmallestNonzeroFloat64, 1e-320, 1e-300, 1e-12} {
		clk := &fakeClock{now: epoch}
		p := New(clk, epoch, rate, 1)
		if got := p.Intended(0); !got.Equal(epoch) {
			t.Errorf("rate %g: record 0 intended at %v, want start %v", rate, got, epoch)
		}
		first, n, err := p.Wait(context.Background(), 10)
		if err != nil || first != 0 || n != 1 || clk.sleeps != 0 {
			t.Errorf("rate %g: Wait = %d, %d, %v after %d sleeps; want record 0 at once", rate, first, n, err, clk.sleeps)
		}
		if got := p.Intended(1); !got.After(epoch.Add(100 * 365 * 24 * time.Hour)) {
			t.Errorf("rate %g: record 1 intended at %v", rate, got)
		}
	}
}

// Round gives the time Intended gives every record of a round, and where the
// round ends, at any rate and round size, up to the last index.
func TestRoundMatchesIntended(t *testing.T) {
	for _, c := range []struct {
		rate  float64
		round uint64
	}{{30, 3}, {1000, 20}, {33333.3, 667}, {1e9, 1}, {0, 5}} {
		p := New(&fakeClock{now: epoch}, epoch, c.rate, c.round)
		for _, i := range []uint64{0, 1, c.round - 1, c.round, 7*c.round + 2, 1 << 40, math.MaxUint64 - 1, math.MaxUint64} {
			at, next := p.Round(i)
			if !at.Equal(p.Intended(i)) {
				t.Fatalf("rate %g, round %d: Round(%d) at %v, Intended %v", c.rate, c.round, i, at, p.Intended(i))
			}
			if next <= i && next != math.MaxUint64 {
				t.Fatalf("rate %g, round %d: Round(%d) ends at %d, not after it", c.rate, c.round, i, next)
			}
			if c.rate > 0 && next != math.MaxUint64 {
				saturated := at.Equal(epoch.Add(math.MaxInt64)) // later rounds share it
				if !p.Intended(next-1).Equal(at) || (!saturated && !p.Intended(next).After(at)) {
					t.Fatalf("rate %g, round %d: Round(%d) ends at %d: records %d and %d at %v and %v, round at %v", c.rate, c.round, i, next, next-1, next, p.Intended(next-1), p.Intended(next), at)
				}
			}
		}
	}
}
