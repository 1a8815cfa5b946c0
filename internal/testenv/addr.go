package testenv

import (
	"net"
	"testing"
)

// FreeAddr is a loopback address (127.0.0.1:port) nobody listens on right
// now: for a server the test starts there next, or a dial refused.
func FreeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}
