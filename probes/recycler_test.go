package probes

import (
	"testing"
	"unsafe"
)

// Records go back in lists and come out again, each exactly once: a record
// handed out twice while in flight would carry two records' headers.
func TestRecyclerHandsEachRecordOutOnce(t *testing.T) {
	rc := newRecycler(100)
	if rc.batch != recycleMax {
		t.Fatalf("batch of 100-byte records = %d, want %d", rc.batch, recycleMax)
	}
	out := map[*sentRecord]bool{}
	var inFlight []*sentRecord
	made := map[*sentRecord]bool{}
	for i := range 10_000 {
		sr := rc.get()
		if out[sr] {
			t.Fatalf("get %d handed out a record already in flight", i)
		}
		if sr.header.rec != sr {
			t.Fatalf("get %d: a record whose header does not point back at it", i)
		}
		out[sr], made[sr] = true, true
		inFlight = append(inFlight, sr)
		if len(inFlight) == 300 { // the oldest 100 are acknowledged
			for _, r := range inFlight[:100] {
				delete(out, r)
				rc.put(r)
			}
			inFlight = append(inFlight[:0], inFlight[100:]...)
		}
	}
	// In flight at most 300, 2 lists of 64 on the way, and the spares of
	// one list: anything above means records were made while spares were.
	if len(made) > 300+3*recycleMax {
		t.Errorf("%d records made for at most 300 in flight", len(made))
	}
}

// A burst (Kafka away, buffer.memory filled) is given back: records that
// stayed spare for a whole period between two trims are dropped, and those
// a steady load keeps using stay.
func TestRecyclerTrimGivesBackABurst(t *testing.T) {
	rc := newRecycler(1024)
	var burst []*sentRecord
	for range 1000 {
		burst = append(burst, rc.get())
	}
	for _, sr := range burst {
		rc.put(sr)
	}
	spare := rc.spares()
	if spare < 1000-rc.batch {
		t.Fatalf("%d spare after 1000 came back, want at least %d", spare, 1000-rc.batch)
	}
	rc.trim() // starts the first period
	steady := func() {
		var inFlight []*sentRecord
		for range 100 {
			inFlight = append(inFlight, rc.get())
		}
		for _, sr := range inFlight {
			rc.put(sr)
		}
	}
	steady()
	rc.trim()
	if got := rc.spares(); got > 100+2*rc.batch {
		t.Errorf("%d spare after a period that used 100, want at most %d", got, 100+2*rc.batch)
	}
	if got := rc.spares(); got < 100-2*rc.batch {
		t.Errorf("%d spare after a period that used 100: the records of the steady load were dropped too", got)
	}
}

// A batch of large records is one: a side holds at most recycleBytes of
// them, or a single one.
func TestRecyclerBatchBoundsBytes(t *testing.T) {
	for _, c := range []struct{ size, want int }{{100, recycleMax}, {1024, 32}, {10240, 3}, {1 << 20, 1}} {
		if got := newRecycler(c.size).batch; got != c.want {
			t.Errorf("batch of %d-byte records = %d, want %d", c.size, got, c.want)
		}
	}
}

// The header shares the record's last cache line with the offset franz-go
// writes just before the promise, so the promise brings in no line of its
// own: the record is 192 bytes, a size class whose objects Go places at
// multiples of 64 bytes.
func TestSentRecordFillsThreeCacheLines(t *testing.T) {
	var sr sentRecord
	if size := unsafe.Sizeof(sr); size != 192 {
		t.Fatalf("sentRecord is %d bytes, want 192", size)
	}
	line := func(off uintptr) uintptr { return off / 64 }
	if line(unsafe.Offsetof(sr.header)) != line(unsafe.Offsetof(sr.Offset)) || line(unsafe.Offsetof(sr.header)+unsafe.Sizeof(sr.header)-1) != line(unsafe.Offsetof(sr.Offset)) {
		t.Errorf("header at %d..%d, offset at %d: not in one cache line", unsafe.Offsetof(sr.header), unsafe.Offsetof(sr.header)+unsafe.Sizeof(sr.header), unsafe.Offsetof(sr.Offset))
	}
	rc := newRecycler(100)
	for range 100 {
		if p := uintptr(unsafe.Pointer(rc.get())); p%64 != 0 {
			t.Fatalf("a record at %#x, not 64-byte aligned", p)
		}
	}
}
