package run

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// evictFile drops the page cache of one file: fsync first (allowed on a
// file opened for reading), as DONTNEED leaves dirty pages, and the broker
// leaves writing back to the kernel; then posix_fadvise POSIX_FADV_DONTNEED,
// which needs no root.
func evictFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil // a segment deleted meanwhile
		}
		return err
	}
	defer func() { _ = f.Close() }() // read-only: nothing to flush
	if err := f.Sync(); err != nil {
		return fmt.Errorf("fsync %s: %w", path, err)
	}
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		return fmt.Errorf("posix_fadvise DONTNEED %s: %w", path, err)
	}
	return nil
}
