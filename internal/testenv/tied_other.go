//go:build !linux

package testenv

import "os/exec"

// StartTied starts cmd; the kernel's parent-death signal it relies on is
// Linux only.
func StartTied(cmd *exec.Cmd) error { return cmd.Start() }
