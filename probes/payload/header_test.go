package payload

import (
	"bytes"
	"errors"
	"math"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		h    Header
	}{
		{"zero", Header{}},
		{"typical", Header{RunID: 0xdeadbeefcafebabe, Partition: 7, Seq: 123456, Intended: 1_700_000_000_123_456_789}},
		{"max", Header{RunID: math.MaxUint64, Partition: math.MaxInt32, Seq: math.MaxUint64, Intended: math.MaxInt64}},
		{"negative", Header{RunID: 1, Partition: -1, Seq: 1, Intended: math.MinInt64}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			buf := make([]byte, HeaderSize+10)
			for i := range buf {
				buf[i] = 0xAA
			}
			Encode(buf, tt.h)
			if !bytes.Equal(buf[HeaderSize:], bytes.Repeat([]byte{0xAA}, 10)) {
				t.Fatalf("Encode wrote past HeaderSize: % x", buf[HeaderSize:])
			}
			if string(buf[:4]) != "KBX1" {
				t.Fatalf("magic = %q", buf[:4])
			}
			got, err := Decode(buf)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if got != tt.h {
				t.Fatalf("Decode = %+v, want %+v", got, tt.h)
			}
		})
	}
}

// TestLayout pins the wire format: other tools may decode these records.
func TestLayout(t *testing.T) {
	buf := make([]byte, HeaderSize)
	Encode(buf, Header{RunID: 0x0102030405060708, Partition: 0x090a0b0c, Seq: 0x0d0e0f1011121314, Intended: 0x15161718191a1b1c})
	want := []byte{
		'K', 'B', 'X', '1',
		1, 2, 3, 4, 5, 6, 7, 8,
		9, 10, 11, 12,
		13, 14, 15, 16, 17, 18, 19, 20,
		21, 22, 23, 24, 25, 26, 27, 28,
	}
	if !bytes.Equal(buf[:32], want) {
		t.Fatalf("layout = % x, want % x", buf[:32], want)
	}
	// CRC-32C("KBX1" + bytes 1..28), computed with a bitwise reference
	// implementation (check value of "123456789" is 0xe3069283).
	if got, want := buf[32:], []byte{0x1e, 0x8f, 0x09, 0x95}; !bytes.Equal(got, want) {
		t.Fatalf("crc = % x, want % x", got, want)
	}
}

func TestDecodeErrors(t *testing.T) {
	valid := make([]byte, HeaderSize)
	Encode(valid, Header{RunID: 42, Partition: 3, Seq: 9, Intended: 1000})
	mutate := func(f func(b []byte)) []byte {
		b := bytes.Clone(valid)
		f(b)
		return b
	}
	tests := []struct {
		name string
		in   []byte
		want error
	}{
		{"nil", nil, ErrTooShort},
		{"one short", valid[:HeaderSize-1], ErrTooShort},
		{"bad magic", mutate(func(b []byte) { b[3] = '2' }), ErrBadMagic},
		{"not a probe", []byte(`{"some":"json record that is long enough"}`), ErrBadMagic},
		{"flipped seq bit", mutate(func(b []byte) { b[20] ^= 1 }), ErrChecksum},
		{"flipped crc bit", mutate(func(b []byte) { b[35] ^= 0x80 }), ErrChecksum},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode(tt.in)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Decode error = %v, want %v", err, tt.want)
			}
		})
	}
	if errors.Is(ErrTooShort, ErrBadMagic) || errors.Is(ErrBadMagic, ErrChecksum) || errors.Is(ErrTooShort, ErrChecksum) {
		t.Fatal("sentinel errors are not distinct")
	}
}

func TestEncodePanicsOnShortBuffer(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("Encode into a short buffer did not panic")
		}
	}()
	Encode(make([]byte, HeaderSize-1), Header{})
}

func TestNewRunID(t *testing.T) {
	seen := make(map[uint64]bool)
	for range 1000 {
		id := NewRunID()
		if id == 0 {
			t.Fatal("NewRunID returned 0")
		}
		if seen[id] {
			t.Fatalf("NewRunID repeated %#x", id)
		}
		seen[id] = true
	}
}

func FuzzDecode(f *testing.F) {
	valid := make([]byte, HeaderSize+4)
	Encode(valid, Header{RunID: 1, Partition: 2, Seq: 3, Intended: 4})
	f.Add(valid)
	f.Add(valid[:HeaderSize-1])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := Decode(b)
		if err != nil {
			return
		}
		out := make([]byte, HeaderSize)
		Encode(out, h)
		if !bytes.Equal(out, b[:HeaderSize]) {
			t.Fatalf("re-encode = % x, input = % x", out, b[:HeaderSize])
		}
	})
}

// TestHeaderSizeMatchesLayout: config's HeaderSize, which bounds record_size,
// is where the layout's checksum ends.
func TestHeaderSizeMatchesLayout(t *testing.T) {
	if HeaderSize != crcOffset+4 {
		t.Fatalf("HeaderSize %d, layout ends at %d", HeaderSize, crcOffset+4)
	}
}
