package main

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// /metrics behind exporter-toolkit's --web.config.file: TLS with a
// certificate made here, basic auth with a bcrypt hash, checked with a real
// HTTPS client.
func TestWebConfigTLSAndBasicAuth(t *testing.T) {
	srv := startBehindWebConfig(t, "50")
	p, addr, get, user, password := srv.p, srv.addr, srv.get, srv.user, srv.password
	for _, c := range []struct {
		name, method, path, user, pass string
		want                           int
	}{
		{"no credentials", http.MethodGet, "/metrics", "", "", http.StatusUnauthorized},
		{"wrong password", http.MethodGet, "/metrics", user, "nope", http.StatusUnauthorized},
		{"unknown user", http.MethodGet, "/metrics", "someone", password, http.StatusUnauthorized},
		{"reload without credentials", http.MethodPost, "/-/reload", "", "", http.StatusUnauthorized},
		{"landing page without credentials", http.MethodGet, "/", "", "", http.StatusUnauthorized},
		{"credentials", http.MethodGet, "/metrics", user, password, http.StatusOK},
	} {
		code, body, err := get(c.method, c.path, c.user, c.pass)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if code != c.want {
			t.Errorf("%s: %s %s = %d, want %d", c.name, c.method, c.path, code, c.want)
		}
		if code == http.StatusOK && !strings.Contains(body, "kafka_bench_build_info") {
			t.Errorf("%s: the metrics lack kafka_bench_build_info", c.name)
		}
	}

	// Plain HTTP and an untrusting client are refused.
	if resp, err := (&http.Client{Timeout: 5 * time.Second}).Get("http://" + addr + "/metrics"); err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Error("plain HTTP served the metrics")
		}
	}
	if _, err := (&http.Client{Timeout: 5 * time.Second}).Get("https://" + addr + "/metrics"); err == nil {
		t.Error("a client that does not trust the test CA connected")
	}
	p.alive(t)
	p.stop(t)
}
