// Package backoff is the program's one exponential backoff: the waits of a
// failing client's retries, of the probe topic's readiness and of the
// configuration watcher's polls for a missing topic. It depends on no
// package of the project.
//
// franz-go's own retry wait between a request's tries (kgo.RetryBackoffFn,
// set in kclient) is not this: it is linear and short on purpose, so that
// a probe sees a returning broker as soon as its clients do.
package backoff

import "time"

// Exp waits First after the first failure in a row and twice the previous
// wait after each further one, never more than Max.
type Exp struct {
	First, Max time.Duration
}

// After is the wait after the n-th failure in a row; n < 1 counts as 1.
func (e Exp) After(n int) time.Duration {
	if n < 1 {
		n = 1
	}
	d := e.First
	for i := 1; i < n && d < e.Max; i++ {
		d *= 2
	}
	return min(d, e.Max)
}
