package payload

import (
	"testing"
)

func TestPoolGet(t *testing.T) {
	tests := []int{HeaderSize, HeaderSize + 1, 100, 1024}
	for _, size := range tests {
		p := NewPool(size)
		if p.Size() != size {
			t.Fatalf("Size = %d, want %d", p.Size(), size)
		}
		h := Header{RunID: 5, Partition: 1, Seq: uint64(size), Intended: 99}
		b := p.Get(h)
		if len(b) != size {
			t.Fatalf("size %d: len = %d", size, len(b))
		}
		got, err := Decode(b)
		if err != nil || got != h {
			t.Fatalf("size %d: Decode = %+v, %v; want %+v", size, got, err, h)
		}
		for i, c := range b[HeaderSize:] {
			if c < 'A' || c > 'Z' {
				t.Fatalf("size %d: padding byte %d = %q, want A-Z", size, HeaderSize+i, c)
			}
		}
	}
}

// TestPoolPaddingVaries guards against a constant fill, which would compress
// far better than the A-Z text Kafka's perf tools send.
func TestPoolPaddingVaries(t *testing.T) {
	b := NewPool(HeaderSize + 4096).Get(Header{})
	var seen [26]bool
	n := 0
	for _, c := range b[HeaderSize:] {
		if !seen[c-'A'] {
			seen[c-'A'] = true
			n++
		}
	}
	if n < 20 {
		t.Fatalf("padding uses only %d distinct letters", n)
	}
}

func TestPoolReuse(t *testing.T) {
	p := NewPool(64)
	a := p.Get(Header{Seq: 1})
	pad := string(a[HeaderSize:])
	p.Put(a)
	b := p.Get(Header{Seq: 2})
	if &a[0] != &b[0] {
		t.Fatal("Get after Put allocated a new buffer")
	}
	if h, err := Decode(b); err != nil || h.Seq != 2 {
		t.Fatalf("reused buffer header = %+v, %v; want seq 2", h, err)
	}
	if string(b[HeaderSize:]) != pad {
		t.Fatal("padding changed on reuse")
	}
	c := p.Get(Header{Seq: 3})
	if &c[0] == &b[0] {
		t.Fatal("buffer handed out twice")
	}
}

func TestPoolPutForeign(t *testing.T) {
	p := NewPool(64)
	p.Put(make([]byte, 10))
	p.Put(make([]byte, 64, 128))
	b := p.Get(Header{})
	if len(b) != 64 || cap(b) != 64 {
		t.Fatalf("Get returned len %d cap %d after foreign Put", len(b), cap(b))
	}
}

func TestNewPoolPanicsBelowHeaderSize(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("NewPool(HeaderSize-1) did not panic")
		}
	}()
	NewPool(HeaderSize - 1)
}

func BenchmarkPoolGetPut(b *testing.B) {
	p := NewPool(1024)
	b.ReportAllocs()
	var seq uint64
	for b.Loop() {
		seq++
		p.Put(p.Get(Header{RunID: 1, Seq: seq, Intended: int64(seq)}))
	}
}

// TestPoolTrim: buffers a past peak needed are dropped after the period
// that followed it; a steady load keeps its own.
func TestPoolTrim(t *testing.T) {
	p := NewPool(HeaderSize)
	get := func(n int) [][]byte {
		var bs [][]byte
		for i := 0; i < n; i++ {
			bs = append(bs, p.Get(Header{}))
		}
		return bs
	}
	put := func(bs [][]byte) {
		for _, b := range bs {
			p.Put(b)
		}
	}
	put(get(100)) // an outage: 100 records in flight at once
	steady := get(3)
	p.Trim() // the period with the peak: everything is kept
	if n := len(p.free); n != 97 {
		t.Fatalf("after the first Trim %d free buffers, want 97 (peak 100, 3 out)", n)
	}
	put(get(5)) // the next period needs at most 5 more than the 3 out
	p.Trim()
	if n := len(p.free); n != 5 {
		t.Errorf("after the second Trim %d free buffers, want 5", n)
	}
	put(steady)
	p.Trim()
	if n := len(p.free); n != 3 {
		t.Errorf("after returning the steady buffers %d free, want 3 (at most 3 were out in the period)", n)
	}
}
