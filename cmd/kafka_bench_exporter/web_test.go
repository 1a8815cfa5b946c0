package main

import (
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/kafka-bench/kafka_bench_exporter/internal/exportertest"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testcerts"
)

// /metrics behind exporter-toolkit's --web.config.file: TLS with a
// certificate made here, basic auth with a bcrypt hash, checked with a real
// HTTPS client.
func TestWebConfigTLSAndBasicAuth(t *testing.T) {
	dir := t.TempDir()
	certs, err := testcerts.Generate(dir)
	if err != nil {
		t.Fatal(err)
	}
	const user, password = "prometheus", "scrape-pw"
	hash, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	webConfig := filepath.Join(dir, "web.yml")
	if err := os.WriteFile(webConfig, fmt.Appendf(nil, `
tls_server_config:
  cert_file: %s
  key_file: %s
basic_auth_users:
  %s: %s
`, certs.ServerCertFile, certs.ServerKeyFile, user, hash), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	p := startBinary(t, "--web.listen-address="+addr, "--web.config.file="+webConfig, "--probe.rate=50", "--no-collector.host")

	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: certs.CAPool, MinVersion: tls.VersionTLS12},
	}}
	defer client.CloseIdleConnections()
	get := func(method, path, user, pass string) (int, string, error) {
		req, _ := http.NewRequest(method, "https://"+addr+path, nil)
		if user != "" {
			req.SetBasicAuth(user, pass)
		}
		resp, err := client.Do(req)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), nil
	}
	exportertest.Eventually(t, 30*time.Second, "HTTPS listener up", func() (bool, string) {
		code, _, err := get(http.MethodGet, "/metrics", user, password)
		if err != nil {
			return false, err.Error()
		}
		return code == http.StatusOK, fmt.Sprint(code)
	})
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
