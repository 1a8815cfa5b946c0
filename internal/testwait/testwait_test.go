package testwait

import (
	"fmt"
	"testing"
	"time"
)

// fatalRecorder records Fatalf instead of ending the test.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (r *fatalRecorder) Helper() {}
func (r *fatalRecorder) Fatalf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
}

// TestUntil: a condition that comes true returns at once; one that never
// does fails with the last state it reported.
func TestUntil(t *testing.T) {
	n := 0
	Until(t, time.Second, time.Millisecond, "three calls", func() (bool, string) { n++; return n == 3, "" })
	if n != 3 {
		t.Errorf("cond called %d times, want 3", n)
	}
	r := &fatalRecorder{TB: t}
	calls := 0
	Until(r, 20*time.Millisecond, time.Millisecond, "never", func() (bool, string) {
		calls++
		if r.msg != "" { // Fatalf returned: stop the loop as FailNow would
			return true, ""
		}
		return false, fmt.Sprintf("call %d", calls)
	})
	if want := fmt.Sprintf("timed out after 20ms waiting for never (last state: call %d)", calls-1); r.msg != want {
		t.Errorf("failure %q, want %q", r.msg, want)
	}
}
