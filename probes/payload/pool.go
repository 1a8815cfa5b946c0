package payload

import (
	"fmt"
	"math/rand/v2"
	"sync"
)

// Pool hands out record buffers of one size. The padding after the header is
// filled with random A-Z once per buffer (copied from a template generated
// once per pool) and never rewritten: only the header changes between uses.
//
// A mutex-guarded free list is used instead of sync.Pool so that buffers are
// reliably reused (sync.Pool drops items on GC and randomly under -race). It
// retains at most the peak number of buffers that were in flight at once,
// and Trim gives back what a past peak (an outage) no longer needs.
type Pool struct {
	size     int
	template []byte // header area zero, padding random A-Z; read-only

	mu   sync.Mutex
	free [][]byte
	out  int // buffers handed out and not yet put back
	peak int // most buffers out at once since the last Trim
}

// NewPool returns a pool of buffers of exactly size bytes. It panics if size
// is smaller than HeaderSize; configuration validation guarantees it is not.
func NewPool(size int) *Pool {
	if size < HeaderSize {
		panic(fmt.Sprintf("payload: record size %d smaller than header size %d", size, HeaderSize))
	}
	t := make([]byte, size)
	for i := HeaderSize; i < size; i++ {
		t[i] = byte('A' + rand.IntN(26))
	}
	return &Pool{size: size, template: t}
}

// Size is the length of every buffer handed out.
func (p *Pool) Size() int { return p.size }

// Get returns a buffer of Size bytes with h encoded at its start. The caller
// must not modify the padding.
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
	p.mu.Unlock()
	if b == nil {
		b = make([]byte, p.size)
		copy(b, p.template)
	}
	Encode(b, h)
	return b
}

// Put returns a buffer once the produce promise has fired. Buffers that did
// not come from this pool (wrong capacity) are dropped rather than reused;
// putting a buffer twice would hand it to two records, so the caller must not.
func (p *Pool) Put(b []byte) {
	if cap(b) != p.size {
		return
	}
	b = b[:p.size]
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
