//go:build linux

package promtest

import (
	"os"
	"syscall"
)

// sysProcAttr puts Prometheus in its own process group and has the kernel
// kill it if the thread that started it dies (see start), so a crashed or
// killed test binary leaves no Prometheus behind.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// kill sends SIGKILL to the process group Prometheus leads.
func kill(p *os.Process) {
	if err := syscall.Kill(-p.Pid, syscall.SIGKILL); err != nil {
		_ = p.Kill()
	}
}
