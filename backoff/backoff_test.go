package backoff

import (
	"testing"
	"time"
)

func TestExp(t *testing.T) {
	e := Exp{First: time.Second, Max: 30 * time.Second}
	for _, c := range []struct {
		n    int
		want time.Duration
	}{
		{-3, time.Second}, {0, time.Second}, {1, time.Second}, {2, 2 * time.Second}, {3, 4 * time.Second},
		{5, 16 * time.Second}, {6, 30 * time.Second}, {7, 30 * time.Second}, {1 << 30, 30 * time.Second},
	} {
		if got := e.After(c.n); got != c.want {
			t.Errorf("After(%d) = %v, want %v", c.n, got, c.want)
		}
	}
	// A maximum that is not a doubling of the first is reached, not passed.
	if got := (Exp{First: 250 * time.Millisecond, Max: 10 * time.Second}).After(7); got != 10*time.Second {
		t.Errorf("After(7) = %v, want 10s", got)
	}
	if got := (Exp{First: 250 * time.Millisecond, Max: 10 * time.Second}).After(6); got != 8*time.Second {
		t.Errorf("After(6) = %v, want 8s", got)
	}
}
