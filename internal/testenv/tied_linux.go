//go:build linux

package testenv

import (
	"errors"
	"os/exec"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// StartTied starts cmd so that the kernel kills it (SIGKILL) when the test
// binary dies, and returns once it runs; the caller still Waits for it.
//
// Pdeathsig fires when the OS thread that forked the child exits, not the
// process. The Go runtime ends a thread when a goroutine locked to it
// returns, and such a goroutine can be scheduled on any thread that has
// forked before: a child started from an arbitrary thread can be killed
// long before the test binary ends, by code that never touched it (a
// Kafka broker SIGKILLed when a Prometheus of another test stopped). So
// StartTied forks from a goroutine locked to its thread that lives until
// the child exits, and every Pdeathsig child must be started by it.
func StartTied(cmd *exec.Cmd) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine, after the child
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		waitExited(cmd.Process.Pid)
	}()
	return <-started
}

// waitExited blocks until child pid has exited, without reaping it (the
// caller's Wait does), or until it is no longer a child of this process.
func waitExited(pid int) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			return
		}
	}
}
