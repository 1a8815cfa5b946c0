package probes

import "sync"

// positions holds, per partition, the next offset the probe's consumers will
// read: their in-process position, known without asking Kafka, so lag from
// it is 0 as soon as the consumer has read everything (the committed offset
// trails it by up to one commit interval).
type positions struct {
	mu   sync.Mutex
	next map[int32]int64
}

func newPositions() *positions { return &positions{next: map[int32]int64{}} }

// set records that the record before offset next was processed.
func (ps *positions) set(partition int32, next int64) {
	ps.mu.Lock()
	ps.next[partition] = next
	ps.mu.Unlock()
}

// get returns the position of partition; ok is false before the first
// record of the partition was read.
func (ps *positions) get(partition int32) (next int64, ok bool) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	next, ok = ps.next[partition]
	return next, ok
}

// reset forgets every partition (the topic was recreated).
func (ps *positions) reset() {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	clear(ps.next)
}
