package verdict

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMannWhitneyCounts checks the null distribution against hand counts:
// for 3 and 3 values U = 0 happens in 1 of C(6,3) = 20 orderings; for 5 and
// 5 the first counts are the partitions of u into at most 5 parts <= 5.
func TestMannWhitneyCounts(t *testing.T) {
	c := mannWhitneyCounts(3, 3)
	if len(c) != 10 || c[0] != 1 || c[1] != 1 || c[2] != 2 || c[4] != 3 || sum(c) != 20 {
		t.Errorf("counts(3,3) = %v, want 10 values from 1 1 2 3 3 ... summing to 20", c)
	}
	c = mannWhitneyCounts(5, 5)
	if c[0] != 1 || c[1] != 1 || c[2] != 2 || c[3] != 3 || c[4] != 5 || sum(c) != 252 {
		t.Errorf("counts(5,5) start %v and sum to %v, want 1 1 2 3 5 ... and 252", c[:5], sum(c))
	}
	for u := range c {
		if c[u] != c[len(c)-1-u] {
			t.Fatalf("counts(5,5) not symmetric at %d: %v", u, c)
		}
	}
}

// TestRankBound: the levels are exact, and with 3 and 3 rounds 90 % is the
// best a rank method can do (the widest interval).
func TestRankBound(t *testing.T) {
	cases := []struct {
		n, m, k int
		level   float64
	}{
		{3, 3, 1, 1 - 2.0/20},
		{4, 4, 1, 1 - 2.0/70},
		{5, 5, 3, 1 - 2*4.0/252}, // R: qwilcox(0.025, 5, 5) = 2, so the 3rd difference
		{2, 2, 1, 1 - 2.0/6},
	}
	for _, c := range cases {
		k, level := rankBound(c.n, c.m, 0.05)
		if k != c.k || math.Abs(level-c.level) > 1e-12 {
			t.Errorf("rankBound(%d, %d) = %d, %.6f; want %d, %.6f", c.n, c.m, k, level, c.k, c.level)
		}
	}
}

// TestRatioIntervalByHand: 2 and 2 values, ratios 2, 2, 3, 3.
func TestRatioIntervalByHand(t *testing.T) {
	iv, ok := RatioInterval([]float64{2, 3}, []float64{1, 1})
	if !ok {
		t.Fatal("no interval")
	}
	if math.Abs(iv.Ratio-math.Sqrt(6)) > 1e-9 || math.Abs(iv.Low-2) > 1e-9 || math.Abs(iv.High-3) > 1e-9 {
		t.Errorf("interval %+v, want ratio √6 (median of log 2, log 2, log 3, log 3), [2, 3]", iv)
	}
	if _, ok := RatioInterval([]float64{2}, []float64{1, 1}); ok {
		t.Error("an interval from one value")
	}
}

// rounds draws n rounds around mean with relative normal noise.
func rounds(rng *rand.Rand, n int, mean, noise float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = mean * (1 + noise*rng.NormFloat64())
	}
	return v
}

// TestVerdictKnownShift: 20 % more throughput with 2 % noise is "better",
// 20 % more latency "worse", 20 % less latency "better", in every trial.
func TestVerdictKnownShift(t *testing.T) {
	const trials, n = 200, 5
	for seed := uint64(1); seed <= trials; seed++ {
		rng := rand.New(rand.NewPCG(seed, 0))
		base := rounds(rng, n, 10000, 0.02)
		up, down := rounds(rng, n, 12000, 0.02), rounds(rng, n, 8000, 0.02)
		for _, c := range []struct {
			x            []float64
			higherBetter bool
			want         string
		}{
			{up, true, Better},
			{up, false, Worse},
			{down, false, Better},
			{down, true, Worse},
		} {
			iv, _ := RatioInterval(c.x, base)
			if got := Judge(iv, c.higherBetter); got != c.want {
				t.Fatalf("seed %d: %v against %v (higher is better: %v): %s, interval %+v; want %s", seed, c.x, base, c.higherBetter, got, iv, c.want)
			}
			if c.x[0] > base[0] && (iv.Ratio < 1.1 || iv.Ratio > 1.3) {
				t.Fatalf("seed %d: ratio %.3f for a 1.2 shift", seed, iv.Ratio)
			}
		}
	}
}

// TestVerdictIdenticalDistributions: with no effect, "no difference" in at
// least 90 % of the trials (the level is 96.8 % with 5 and 5 rounds, 97.1 %
// with 4 and 4).
func TestVerdictIdenticalDistributions(t *testing.T) {
	const trials = 200
	for _, n := range []int{4, 5, 8} {
		same := 0
		for seed := uint64(1); seed <= trials; seed++ {
			rng := rand.New(rand.NewPCG(seed, uint64(n)))
			iv, _ := RatioInterval(rounds(rng, n, 10000, 0.1), rounds(rng, n, 10000, 0.1))
			if Judge(iv, true) == NoDifference {
				same++
			}
		}
		if same < trials*9/10 {
			t.Errorf("%d rounds: no difference in %d of %d trials of identical distributions, want >= 90 %%", n, same, trials)
		}
		t.Logf("%d rounds: no difference in %d of %d trials", n, same, trials)
	}
}

func sum(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s
}

// mannWhitneyTable is the null distribution from the table of every
// smaller pair of sizes: slow and big, but plainly right.
func mannWhitneyTable(n, m int) []float64 {
	c := make([][][]float64, n+1)
	for i := range c {
		c[i] = make([][]float64, m+1)
		for j := range c[i] {
			c[i][j] = make([]float64, i*j+1)
			if i == 0 || j == 0 {
				c[i][j][0] = 1
				continue
			}
			for u := range c[i][j] {
				if u-j >= 0 && u-j < len(c[i-1][j]) {
					c[i][j][u] += c[i-1][j][u-j]
				}
				if u < len(c[i][j-1]) {
					c[i][j][u] += c[i][j-1][u]
				}
			}
		}
	}
	return c[n][m]
}

// The counts equal the table's: exactly while they are below 2^53, within
// 1e-12 beyond.
func TestMannWhitneyCountsMatchTable(t *testing.T) {
	for _, nm := range [][2]int{{1, 1}, {2, 5}, {5, 2}, {3, 7}, {8, 8}, {12, 20}, {20, 12}, {40, 40}} {
		got, want := mannWhitneyCounts(nm[0], nm[1]), mannWhitneyTable(nm[0], nm[1])
		if len(got) != len(want) {
			t.Fatalf("counts(%d, %d): %d values, want %d", nm[0], nm[1], len(got), len(want))
		}
		for u := range want {
			exact := want[u] < 1<<53
			if (exact && got[u] != want[u]) || math.Abs(got[u]-want[u]) > 1e-12*want[u] {
				t.Fatalf("counts(%d, %d)[%d] = %v, want %v", nm[0], nm[1], u, got[u], want[u])
			}
		}
	}
}

// A ratio within ±2 % is no difference even when its interval excludes 1;
// beyond it the interval decides.
func TestVerdictMinimumEffect(t *testing.T) {
	cases := []struct {
		iv   Interval
		want string
	}{
		{Interval{Ratio: 0.990, Low: 0.990, High: 0.990}, NoDifference},
		{Interval{Ratio: 1.015, Low: 1.010, High: 1.020}, NoDifference},
		{Interval{Ratio: 1.030, Low: 1.025, High: 1.035}, Better},
		{Interval{Ratio: 0.950, Low: 0.940, High: 0.960}, Worse},
		{Interval{Ratio: 1.300, Low: 0.900, High: 1.500}, NoDifference},
	}
	for _, c := range cases {
		if got := Judge(c.iv, true); got != c.want {
			t.Errorf("Judge(%+v) = %s, want %s", c.iv, got, c.want)
		}
	}
}
