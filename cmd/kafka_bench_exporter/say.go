package main

import (
	"fmt"
	"io"
)

// say writes a line of the command's output to stdout or stderr. A write
// there that fails (a full disk behind a redirect) has nowhere left to be
// reported, so its error is dropped here, once; the exit code still says
// how the command ended.
func say(w io.Writer, format string, args ...any) {
	_, _ = fmt.Fprintf(w, format, args...)
}
