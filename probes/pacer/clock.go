package pacer

import (
	"context"
	"time"
)

// Clock abstracts time so the schedule can be tested without sleeping.
type Clock interface {
	Now() time.Time
	// SleepUntil blocks until t or until ctx is done, returning ctx.Err()
	// in the latter case.
	SleepUntil(ctx context.Context, t time.Time) error
}

type realClock struct{}

// RealClock returns the wall clock.
func RealClock() Clock { return realClock{} }

func (realClock) Now() time.Time { return time.Now() }

func (realClock) SleepUntil(ctx context.Context, t time.Time) error {
	return Sleep(ctx, time.Until(t))
}

// Sleep blocks for d or until ctx is done, returning ctx.Err() in the latter
// case (and at once for d <= 0): a Clock's SleepUntil on Go's timers, which
// run on the monotonic clock.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}
