package payload

import (
	"bytes"
	"testing"
)

func letters(size int) *Pool { return NewPool(Body{Kind: RandomLetters, Size: size}) }

func TestPoolGet(t *testing.T) {
	tests := []int{HeaderSize, HeaderSize + 1, 100, 1024}
	for _, size := range tests {
		p := letters(size)
		if p.MaxSize() != size {
			t.Fatalf("MaxSize = %d, want %d", p.MaxSize(), size)
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
	b := letters(HeaderSize + 4096).Get(Header{})
	var seen [26]bool
	n := 0
	for _, c := range b[HeaderSize:] {
		if !seen[c-'A'] {
			seen[c-'A'] = true
			n++
		}
	}
	if n < 26 {
		t.Fatalf("padding uses only %d distinct letters", n)
	}
}

// TestConsecutiveRecordsDiffer: no two consecutive records of a probe share
// their padding, whether their buffers are new or reused, for both random
// kinds; and records are not merely shifted copies of few windows.
func TestConsecutiveRecordsDiffer(t *testing.T) {
	for _, kind := range []string{RandomLetters, RandomBytes} {
		t.Run(kind, func(t *testing.T) {
			p := NewPool(Body{Kind: kind, Size: 1024})
			var prev []byte
			distinct := map[string]bool{}
			for i := range 20_000 {
				b := p.Get(Header{Seq: uint64(i)})
				pad := bytes.Clone(b[HeaderSize:])
				if bytes.Equal(pad, prev) {
					t.Fatalf("record %d has the padding of record %d", i, i-1)
				}
				distinct[string(pad)] = true
				prev = pad
				if i%2 == 0 {
					p.Put(b) // reuse half of the buffers
				}
			}
			if len(distinct) < 19_000 {
				t.Errorf("%d distinct paddings in 20,000 records, want nearly all", len(distinct))
			}
		})
	}
}

// TestRandomBytesUseEveryValue: random_bytes is not letters.
func TestRandomBytesUseEveryValue(t *testing.T) {
	b := NewPool(Body{Kind: RandomBytes, Size: HeaderSize + 64<<10}).Get(Header{})
	var seen [256]bool
	n := 0
	for _, c := range b[HeaderSize:] {
		if !seen[c] {
			seen[c] = true
			n++
		}
	}
	if n != 256 {
		t.Fatalf("64 KiB of random_bytes use %d distinct byte values, want 256", n)
	}
}

// TestFileEntries: each record is the header and one whole entry; every
// entry is used; buffers are reused across entries of different lengths.
func TestFileEntries(t *testing.T) {
	entries := [][]byte{[]byte("a"), []byte("bbbbbbbb"), []byte("cccc")}
	p := NewPool(Body{Kind: File, Entries: entries})
	if p.MaxSize() != HeaderSize+8 {
		t.Fatalf("MaxSize = %d, want %d", p.MaxSize(), HeaderSize+8)
	}
	seen := map[string]int{}
	for i := range 3000 {
		b := p.Get(Header{Seq: uint64(i)})
		if h, err := Decode(b); err != nil || h.Seq != uint64(i) {
			t.Fatalf("record %d: header %+v, %v", i, h, err)
		}
		seen[string(b[HeaderSize:])]++
		p.Put(b)
	}
	for _, e := range entries {
		if seen[string(e)] < 800 {
			t.Errorf("entry %q used %d times in 3,000 records, want about 1,000", e, seen[string(e)])
		}
	}
	if len(seen) != len(entries) {
		t.Errorf("bodies seen %v, want only the entries", seen)
	}
}

func TestPoolReuse(t *testing.T) {
	p := letters(64)
	a := p.Get(Header{Seq: 1})
	p.Put(a)
	b := p.Get(Header{Seq: 2})
	if &a[0] != &b[0] {
		t.Fatal("Get after Put allocated a new buffer")
	}
	if h, err := Decode(b); err != nil || h.Seq != 2 {
		t.Fatalf("reused buffer header = %+v, %v; want seq 2", h, err)
	}
	c := p.Get(Header{Seq: 3})
	if &c[0] == &b[0] {
		t.Fatal("buffer handed out twice")
	}
}

func TestPoolPutForeign(t *testing.T) {
	p := letters(64)
	p.Put(make([]byte, 10))
	p.Put(make([]byte, 64, 128))
	b := p.Get(Header{})
	if len(b) != 64 || cap(b) != 64 {
		t.Fatalf("Get returned len %d cap %d after foreign Put", len(b), cap(b))
	}
}

func TestNewPoolPanics(t *testing.T) {
	for name, b := range map[string]Body{
		"size below header": {Kind: RandomLetters, Size: HeaderSize - 1},
		"file, no entries":  {Kind: File},
		"unknown kind":      {Kind: "zeros", Size: 100},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatalf("NewPool(%+v) did not panic", b)
				}
			}()
			NewPool(b)
		})
	}
}

func BenchmarkPoolGetPut(b *testing.B) {
	p := letters(1024)
	b.ReportAllocs()
	b.SetBytes(1024)
	var seq uint64
	for b.Loop() {
		seq++
		p.Put(p.Get(Header{RunID: 1, Seq: seq, Intended: int64(seq)}))
	}
}

// TestPoolTrim: buffers a past peak needed are dropped after the period
// that followed it; a steady load keeps its own.
func TestPoolTrim(t *testing.T) {
	p := letters(HeaderSize)
	get := func(n int) [][]byte {
		var bs [][]byte
		for range n {
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

// Fill makes the records Get makes into a buffer the caller keeps: the
// header decodes, the body is a fresh window each time, and the buffer is
// reused (or made when it is not one of the pool's).
func TestPoolFill(t *testing.T) {
	p := letters(100)
	var b []byte
	var prev string
	for i := range 100 {
		h := Header{RunID: 3, Partition: 2, Seq: uint64(i), Intended: int64(i)}
		nb := p.Fill(b, h)
		if len(nb) != 100 || cap(nb) != p.MaxSize() {
			t.Fatalf("Fill %d: len %d cap %d, want 100 and %d", i, len(nb), cap(nb), p.MaxSize())
		}
		if b != nil && &nb[0] != &b[0] {
			t.Fatalf("Fill %d made a new buffer instead of reusing the one given", i)
		}
		if got, err := Decode(nb); err != nil || got != h {
			t.Fatalf("Fill %d: Decode = %+v, %v; want %+v", i, got, err, h)
		}
		if body := string(nb[HeaderSize:]); body == prev {
			t.Fatalf("Fill %d: the same body as the record before", i)
		} else {
			prev = body
		}
		b = nb
	}
	if nb := p.Fill(make([]byte, 10), Header{}); cap(nb) != p.MaxSize() {
		t.Errorf("Fill into a foreign buffer: cap %d, want a new one of %d", cap(nb), p.MaxSize())
	}
}
