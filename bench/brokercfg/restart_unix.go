//go:build unix

package brokercfg

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup gives the restart hook its own process group, killed
// whole on the timeout; a Ctrl-C on the terminal reaches the bench alone,
// which lets the hook finish.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
