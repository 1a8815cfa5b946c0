package testenv

import (
	"net"
	"testing"
)

// FreeAddr is a loopback address (127.0.0.1:port) nobody listens on right
// now: for a server the test starts there next, or a dial refused.
func FreeAddr(t testing.TB) string {
	t.Helper()
	addr, err := LoopbackAddr()
	if err != nil {
		t.Fatal(err)
	}
	return addr
}

// FreePort is the port of FreeAddr.
func FreePort(t testing.TB) int {
	t.Helper()
	port, err := LoopbackPort()
	if err != nil {
		t.Fatal(err)
	}
	return port
}

// LoopbackAddr is FreeAddr for programs outside a test (the benchmark
// commands).
func LoopbackAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := l.Addr().String()
	return addr, l.Close()
}

// LoopbackPort is the port of LoopbackAddr.
func LoopbackPort() (int, error) {
	addr, err := LoopbackAddr()
	if err != nil {
		return 0, err
	}
	a, err := net.ResolveTCPAddr("tcp", addr)
	if err != nil {
		return 0, err
	}
	return a.Port, nil
}
