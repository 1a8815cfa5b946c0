//go:build !linux

package run

import "errors"

// evictFile cannot drop a file's page cache here: posix_fadvise
// DONTNEED is Linux's.
func evictFile(string) error {
	return errors.New("dropping the page cache of a file takes posix_fadvise DONTNEED, on Linux only")
}
