package tracker

import (
	"slices"
	"testing"
)

func TestRanges(t *testing.T) {
	var r Ranges
	for _, seq := range []uint64{0, 1, 2, 5, 4, 9} {
		if !r.Add(seq) {
			t.Errorf("Add(%d) = false, want new", seq)
		}
	}
	if r.Add(4) || r.Add(0) {
		t.Error("Add of a present seq reported it new")
	}
	if got, want := r.List(), [][2]uint64{{0, 3}, {4, 6}, {9, 10}}; !slices.Equal(got, want) {
		t.Errorf("List = %v, want %v", got, want)
	}
	r.AddRange(3, 4) // fills the hole: joins both neighbours
	r.AddRange(12, 15)
	r.AddRange(10, 12) // adjacent on both sides
	if got, want := r.List(), [][2]uint64{{0, 6}, {9, 15}}; !slices.Equal(got, want) {
		t.Errorf("List = %v, want %v", got, want)
	}
	if r.Count() != 12 {
		t.Errorf("Count = %d, want 12", r.Count())
	}
	var o Ranges
	o.AddRange(4, 11)
	o.AddRange(14, 20)
	if n := r.Intersect(&o); n != 2+2+1 { // 4,5 + 9,10 + 14
		t.Errorf("Intersect = %d, want 5", n)
	}
	// {0,6} {9,15} without [2, 11): the first cut, the second shortened.
	if n := r.RemoveRange(2, 11); n != 4+2 {
		t.Errorf("RemoveRange(2, 11) = %d, want 6", n)
	}
	if got, want := r.List(), [][2]uint64{{0, 2}, {11, 15}}; !slices.Equal(got, want) {
		t.Errorf("after RemoveRange: List = %v, want %v", got, want)
	}
	if n := r.RemoveRange(20, 30); n != 0 || r.Count() != 6 {
		t.Errorf("RemoveRange outside the set = %d, Count %d; want 0, 6", n, r.Count())
	}
}
