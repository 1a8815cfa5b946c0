package probes

import "time"

// NopRecorder is a Recorder that keeps nothing: the tests' recorders embed
// it and implement what they check.
type NopRecorder struct{}

func (NopRecorder) Produced(time.Time, time.Duration, int, RecordID)       {}
func (NopRecorder) Failed(string, int)                                     {}
func (NopRecorder) Consumed(time.Time, time.Duration, int, bool, RecordID) {}
func (NopRecorder) NotCommitted(uint64, int32, uint64, uint64)             {}
func (NopRecorder) Rebalanced(time.Duration)                               {}
