//go:build !linux

package promtest

import (
	"os"
	"syscall"
)

// sysProcAttr: process groups and Pdeathsig are only set up on Linux.
func sysProcAttr() *syscall.SysProcAttr { return nil }

func kill(p *os.Process) { _ = p.Kill() }
