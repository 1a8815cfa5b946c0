// Package testwait waits in tests for a condition, by bounded polling.
package testwait

import (
	"testing"
	"time"
)

// Until polls cond every interval until it holds, failing t with the last
// state cond reported once timeout has passed.
func Until(t testing.TB, timeout, interval time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, state := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s (last state: %s)", timeout, what, state)
		}
		time.Sleep(interval)
	}
}
