package hostwatch

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testenv"
)

// password is the secret the redaction tests hide; it must appear nowhere.
const password = "hunter2"

// TestNoSecretInScrapeErrors: a scrape of an unreachable URL with a token
// as its user name shows no secret, neither in its error nor in the URL
// the source shows.
func TestNoSecretInScrapeErrors(t *testing.T) {
	src := NewSource(spec.HostEntry{Name: "k", URL: "http://" + password + "@" + testenv.FreeAddr(t) + "/metrics", Disks: ".*", Interfaces: ".*"}, http.DefaultClient)
	_, _, err := src.read(context.Background())
	if err == nil || strings.Contains(err.Error(), password) || !strings.Contains(err.Error(), "http://<secret>@127.0.0.1:") {
		t.Errorf("scrape of an unreachable host: %v", err)
	}
	if strings.Contains(src.URL, password) {
		t.Errorf("the source shows its URL as %q", src.URL)
	}
}
