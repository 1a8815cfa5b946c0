package run

import (
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// resident counts the pages of path in the page cache (mincore).
func resident(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }() // read-only: nothing to flush
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	data, err := unix.Mmap(int(f.Fd()), 0, int(st.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = unix.Munmap(data) }()
	pages := (len(data) + os.Getpagesize() - 1) / os.Getpagesize()
	vec := make([]byte, pages)
	if _, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&data[0])), uintptr(len(data)), uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		t.Fatal(errno)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}

// A segment directory's files leave the page cache: written and read back
// they are resident, evicted none is.
func TestEvictDirDropsThePageCache(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "00000000000000000000.log")
	if err := os.WriteFile(path, make([]byte, 4<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := os.ReadFile(path); err != nil {
		t.Fatal(err)
	}
	if n := resident(t, path); n == 0 {
		t.Fatalf("no page of a file just read is resident: cannot tell an eviction")
	}
	if err := evictDir(dir, false); err != nil {
		t.Fatal(err)
	}
	if n := resident(t, path); n != 0 {
		t.Errorf("%d pages still resident after the eviction, want 0", n)
	}
}

// With keepActive, the newest segment's log file keeps its pages (a tail
// reader finds it in the page cache) and the older ones are evicted.
func TestEvictDirKeepsTheActiveSegment(t *testing.T) {
	dir := t.TempDir()
	older, newest := filepath.Join(dir, "00000000000000000000.log"), filepath.Join(dir, "00000000000000001000.log")
	for _, path := range []string{older, newest} {
		if err := os.WriteFile(path, make([]byte, 4<<20), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := os.ReadFile(path); err != nil {
			t.Fatal(err)
		}
		if n := resident(t, path); n == 0 {
			t.Fatalf("no page of %s, just read, is resident: cannot tell an eviction", path)
		}
	}
	if err := evictDir(dir, true); err != nil {
		t.Fatal(err)
	}
	if n := resident(t, older); n != 0 {
		t.Errorf("%d pages of the older segment still resident, want 0", n)
	}
	if n := resident(t, newest); n == 0 {
		t.Error("the newest segment was evicted too")
	}
}
