package lines

import (
	"errors"
	"strings"
	"testing"
)

var errFull = errors.New("disk full")

// failAfter accepts n writes, then fails every one.
type failAfter struct {
	n, writes int
	out       strings.Builder
}

func (f *failAfter) Write(p []byte) (int, error) {
	f.writes++
	if f.writes > f.n {
		return 0, errFull
	}
	return f.out.Write(p)
}

// TestWriterKeepsFirstError: after a write fails nothing more is written,
// and Err is that first failure.
func TestWriterKeepsFirstError(t *testing.T) {
	w := &failAfter{n: 1}
	lw := New(w)
	lw.Printf("a %d\n", 1)
	lw.Printf("b\n")
	lw.Printf("c\n")
	if !errors.Is(lw.Err(), errFull) || w.writes != 2 || w.out.String() != "a 1\n" {
		t.Errorf("err %v after %d writes, wrote %q; want %v after 2, %q", lw.Err(), w.writes, w.out.String(), errFull, "a 1\n")
	}
}

// TestNilWriter: nowhere to write is a nil Writer that writes nothing and
// never fails.
func TestNilWriter(t *testing.T) {
	lw := New(nil)
	if lw != nil {
		t.Fatalf("New(nil) = %v, want nil", lw)
	}
	lw.Printf("x\n")
	if lw.Err() != nil {
		t.Errorf("Err() = %v, want nil", lw.Err())
	}
}
