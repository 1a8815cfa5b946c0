package hostwatch

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
)

// password is the secret the redaction tests hide; it must appear nowhere.
const password = "hunter2"

// closedAddr is a loopback address nobody listens on: connection refused.
func closedAddr(t *testing.T) string {
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

// TestNoSecretInScrapeErrors: a scrape of an unreachable URL with a token
// as its user name shows no secret, neither in its error nor in the URL
// the source shows.
func TestNoSecretInScrapeErrors(t *testing.T) {
	src := NewSource(spec.HostEntry{Name: "k", URL: "http://" + password + "@" + closedAddr(t) + "/metrics", Disks: ".*", Interfaces: ".*"}, http.DefaultClient)
	_, _, err := src.read(context.Background())
	if err == nil || strings.Contains(err.Error(), password) || !strings.Contains(err.Error(), "http://<secret>@127.0.0.1:") {
		t.Errorf("scrape of an unreachable host: %v", err)
	}
	if strings.Contains(src.URL, password) {
		t.Errorf("the source shows its URL as %q", src.URL)
	}
}
