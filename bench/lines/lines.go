// Package lines writes the bench's plan and progress lines.
package lines

import (
	"fmt"
	"io"
)

// Writer writes lines and keeps the first write error, so a plan cut short
// fails instead of looking complete, and a progress stream that broke is
// reported once instead of line by line. A nil *Writer writes nothing.
type Writer struct {
	w   io.Writer
	err error
}

// New is a Writer to w; nil when w is nil (nowhere to write).
func New(w io.Writer) *Writer {
	if w == nil {
		return nil
	}
	return &Writer{w: w}
}

// Printf writes unless an earlier write failed.
func (lw *Writer) Printf(format string, args ...any) {
	if lw != nil && lw.err == nil {
		_, lw.err = fmt.Fprintf(lw.w, format, args...)
	}
}

// Err is the first write's error; nil while every write succeeded.
func (lw *Writer) Err() error {
	if lw == nil {
		return nil
	}
	return lw.err
}
