//go:build !linux

package promtest

import (
	"os"
	"syscall"
)

// sysProcAttr: process groups are only set up on Linux.
func sysProcAttr() *syscall.SysProcAttr { return nil }

func kill(p *os.Process) { _ = p.Kill() }
