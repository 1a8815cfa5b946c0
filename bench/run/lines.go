package run

import (
	"fmt"
	"io"
)

// lineWriter writes the plan and progress lines and keeps the first write
// error, so a plan cut short fails instead of looking complete, and a
// progress stream that broke is reported once instead of line by line.
type lineWriter struct {
	w   io.Writer
	err error
}

// printf writes unless an earlier write failed.
func (lw *lineWriter) printf(format string, args ...any) {
	if lw.err == nil {
		_, lw.err = fmt.Fprintf(lw.w, format, args...)
	}
}
