package probes

import "sync"

// recycleBytes bounds the bytes of records (their value buffers) one side of
// a recycler holds before it trades them: up to 64 records of 512 bytes or
// less, a single one of 32 KiB or more.
const (
	recycleBytes = 32 << 10
	recycleMax   = 64
)

// recycler keeps the producer's sent records, each with its value buffer,
// for reuse once their promise has run. The produce loop takes records and
// the promises give them back, on different goroutines (and cores): a lock
// per record on each side moved the lock's cache line between the two
// cores twice per record. Each side keeps a short list of its own instead
// and trades whole lists of up to batch records under the mutex. Only the
// produce loop calls get; only promises call put, which franz-go calls one
// at a time.
//
// A burst of records in flight (an outage fills buffer.memory) is given
// back by trim: records that stayed spare for a whole period between two
// trims are dropped.
type recycler struct {
	batch int

	mu    sync.Mutex
	spare []*sentRecord
	low   int // fewest spare records since the last trim

	taken []*sentRecord // the produce loop's
	back  []*sentRecord // the promises'
}

// newRecycler trades records of up to size bytes in lists of at most
// recycleBytes.
func newRecycler(size int) *recycler {
	return &recycler{batch: min(max(recycleBytes/max(size, 1), 1), recycleMax)}
}

// get returns a spare record, or a new one.
func (rc *recycler) get() *sentRecord {
	n := len(rc.taken)
	if n == 0 {
		rc.mu.Lock()
		k := min(rc.batch, len(rc.spare))
		rest := len(rc.spare) - k
		rc.taken = append(rc.taken, rc.spare[rest:]...)
		clear(rc.spare[rest:])
		rc.spare = rc.spare[:rest]
		rc.low = min(rc.low, rest)
		rc.mu.Unlock()
		for ; k < rc.batch; k++ { // none spare: made here, not one lock each
			sr := new(sentRecord)
			sr.header.rec = sr
			rc.taken = append(rc.taken, sr)
		}
		n = len(rc.taken)
	}
	sr := rc.taken[n-1]
	rc.taken[n-1] = nil
	rc.taken = rc.taken[:n-1]
	return sr
}

// put gives back a record whose promise has run.
func (rc *recycler) put(sr *sentRecord) {
	rc.back = append(rc.back, sr)
	if len(rc.back) < rc.batch {
		return
	}
	rc.mu.Lock()
	rc.spare = append(rc.spare, rc.back...)
	rc.mu.Unlock()
	clear(rc.back)
	rc.back = rc.back[:0]
}

// trim drops the records that stayed spare since the last trim, and starts
// a new period.
func (rc *recycler) trim() {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if drop := min(rc.low, len(rc.spare)); drop > 0 {
		// A new, smaller list: the old backing array would keep a pointer
		// slot per record of the peak.
		rc.spare = append([]*sentRecord(nil), rc.spare[drop:]...)
	}
	rc.low = len(rc.spare)
}

// spares is how many records are spare (tests).
func (rc *recycler) spares() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.spare)
}
