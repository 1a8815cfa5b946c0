package payload

import (
	"sync"
)

// Pool hands out record buffers: the header, then a body that differs from
// the previous record's (see Body). Buffers are reused; the body is copied
// into them on every Get.
//
// A mutex-guarded free list is used instead of sync.Pool so that buffers are
// reliably reused (sync.Pool drops items on GC and randomly under -race). It
// retains at most the peak number of buffers that were in flight at once,
// and Trim gives back what a past peak (an outage) no longer needs.
type Pool struct {
	capacity int // every buffer's capacity: the longest record

	mu   sync.Mutex
	body *body
	free [][]byte
	out  int // buffers handed out and not yet put back
	peak int // most buffers out at once since the last Trim
	// scratch is where Fill makes a header (encodeVia), under mu.
	scratch [HeaderSize]byte
}

// NewPool returns a pool of records made as b says. It panics on a size
// below HeaderSize or a file kind without entries; configuration validation
// guarantees neither happens.
func NewPool(b Body) *Pool {
	bd := newBody(b)
	return &Pool{capacity: bd.maxSize, body: bd}
}

// MaxSize is the length of the longest record handed out.
func (p *Pool) MaxSize() int { return p.capacity }

// Get returns a record with h encoded at its start and the next body after
// it. The caller must not modify it.
func (p *Pool) Get(h Header) []byte {
	p.mu.Lock()
	var b []byte
	if n := len(p.free); n > 0 {
		b = p.free[n-1]
		p.free[n-1] = nil
		p.free = p.free[:n-1]
	}
	p.out++
	p.peak = max(p.peak, p.out)
	src := p.body.next()
	p.mu.Unlock()
	if b == nil {
		b = make([]byte, p.capacity)
	}
	b = b[:HeaderSize+len(src)]
	copy(b[HeaderSize:], src)
	Encode(b, h)
	return b
}

// Fill writes h and the next body into b, a buffer an earlier Fill or Get
// returned (or nil: a new one is made), and returns the record. It is Get
// for a caller that keeps its buffers itself (the producer keeps each with
// its record), so the free list, and its lock per buffer given back, is
// left out. The caller must not modify the result.
func (p *Pool) Fill(b []byte, h Header) []byte {
	if cap(b) != p.capacity {
		b = make([]byte, p.capacity)
	}
	p.mu.Lock()
	src := p.body.next()
	b = b[:HeaderSize+len(src)]
	encodeVia(&p.scratch, b, h)
	p.mu.Unlock()
	copy(b[HeaderSize:], src)
	return b
}

// Put returns a buffer once the produce promise has fired. Buffers that did
// not come from this pool (wrong capacity) are dropped rather than reused;
// putting a buffer twice would hand it to two records, so the caller must not.
func (p *Pool) Put(b []byte) {
	if cap(b) != p.capacity {
		return
	}
	b = b[:p.capacity]
	p.mu.Lock()
	p.free = append(p.free, b)
	p.out--
	p.mu.Unlock()
}

// Trim drops the free buffers that the busiest moment since the last Trim
// did not need, and starts a new period. Called periodically, it keeps what
// a steady load uses and gives back, two periods after an outage ends, the
// buffers of the records that piled up during it (up to buffer.memory).
func (p *Pool) Trim() {
	p.mu.Lock()
	defer p.mu.Unlock()
	keep := max(p.peak-p.out, 0)
	if len(p.free) > keep {
		clear(p.free[keep:])
		// A new, smaller list: the old backing array would keep a pointer
		// slot per buffer of the peak.
		p.free = append([][]byte(nil), p.free[:keep]...)
	}
	p.peak = p.out
}
