//go:build linux

package testenv

import (
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// startOnDyingThread starts a child with start from a goroutine whose
// thread ends right after, and reports whether the child is still alive
// half a second later. The runtime never ends the main thread, so a
// goroutine that lands there stays on it, parked, and another one tries.
func startOnDyingThread(t *testing.T, start func(*exec.Cmd) error) bool {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	release := make(chan struct{})
	defer close(release)
	var err error
	for started := false; !started; {
		result := make(chan error, 1)
		onMain := make(chan struct{}, 1)
		go func() {
			runtime.LockOSThread() // the thread that forks when start does not move it
			if syscall.Gettid() == os.Getpid() {
				onMain <- struct{}{}
				<-release
				return
			}
			result <- start(cmd)
			// returning locked ends the thread
		}()
		select {
		case err = <-result:
			started = true
		case <-onMain:
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	select {
	case <-exited:
		return false
	case <-time.After(500 * time.Millisecond):
		return true
	}
}

func TestStartTiedOutlivesTheCallersThread(t *testing.T) {
	plain := func(cmd *exec.Cmd) error {
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		return cmd.Start()
	}
	// The hazard StartTied exists for: a plain Pdeathsig child dies with
	// the thread that forked it.
	if startOnDyingThread(t, plain) {
		t.Fatal("a Pdeathsig child started plainly outlived its thread: the kernel's behaviour this test relies on is missing")
	}
	if !startOnDyingThread(t, StartTied) {
		t.Error("a child started by StartTied died with its caller's thread")
	}
}
