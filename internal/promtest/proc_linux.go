//go:build linux

package promtest

import (
	"os"
	"syscall"
)

// sysProcAttr puts Prometheus in its own process group; testenv.StartTied
// has the kernel kill it with the test binary.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// kill sends SIGKILL to the process group Prometheus leads.
func kill(p *os.Process) {
	if err := syscall.Kill(-p.Pid, syscall.SIGKILL); err != nil {
		_ = p.Kill()
	}
}
