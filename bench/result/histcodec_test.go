package result

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

// latenciesOfValues is the summary of values as a recorder keeps them.
func latenciesOfValues(values []time.Duration) Latencies {
	h := NewHistogram()
	var sum, mx time.Duration
	for _, v := range values {
		_ = h.RecordValue(v.Microseconds())
		sum += v
		mx = max(mx, v)
	}
	return LatenciesOf(h, sum, mx)
}

// roundTrip encodes l as a result file does and decodes it again.
func roundTrip(t *testing.T, l Latencies) Latencies {
	t.Helper()
	data, err := json.Marshal(LatencyJSON(l))
	if err != nil {
		t.Fatal(err)
	}
	var j JSONLatency
	if err := json.Unmarshal(data, &j); err != nil {
		t.Fatal(err)
	}
	out, err := LatenciesFromJSON(j)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Merging K workers' histograms, each through its JSON encoding, gives
// exactly the histogram of all their values: every percentile, the average
// and the maximum.
func TestMergeEqualsAllValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const workers = 4
	var all []time.Duration
	parts := make([]Latencies, workers)
	for w := range parts {
		var vs []time.Duration
		for range 20000 + w*5000 {
			// Each worker its own spread: a body around (w+1) ms and a long tail.
			v := time.Duration(rng.ExpFloat64()*float64(time.Duration(w+1)*time.Millisecond)) + time.Duration(rng.IntN(1000))*time.Microsecond
			vs = append(vs, v.Truncate(time.Microsecond))
		}
		all = append(all, vs...)
		parts[w] = roundTrip(t, latenciesOfValues(vs))
	}
	got, err := MergeLatencies(parts)
	if err != nil {
		t.Fatal(err)
	}
	want := latenciesOfValues(all)
	if !got.hist.Equals(want.hist) {
		t.Error("merged histogram differs from the histogram of all values")
	}
	got.hist, want.hist = nil, nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("merged latencies\n got %+v\nwant %+v", got, want)
	}
	if _, err := MergeLatencies([]Latencies{{Avg: time.Millisecond}}); err == nil {
		t.Error("a summary without its histogram merged")
	}
}
