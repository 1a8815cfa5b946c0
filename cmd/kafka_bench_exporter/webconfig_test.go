package main

import (
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/kafka-bench/kafka_bench_exporter/internal/testcerts"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testenv"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

// webServer is the binary behind --web.config.file (TLS and basic auth).
type webServer struct {
	p              *process
	addr           string
	user, password string
	// get requests a path over HTTPS, trusting the test CA; user "" sends
	// no credentials.
	get func(method, path, user, pass string) (int, string, error)
}

// startBehindWebConfig starts the binary with the default probe at rate on
// the embedded cluster behind TLS and basic auth, and waits for its HTTPS
// listener.
func startBehindWebConfig(t *testing.T, rate string) *webServer {
	t.Helper()
	webConfig, certs, user, password := writeWebConfig(t)
	addr := testenv.FreeAddr(t)
	s := &webServer{addr: addr, user: user, password: password, get: httpsClient(t, certs, addr),
		p: startBinary(t, "--web.listen-address="+addr, "--web.config.file="+webConfig, "--probe.rate="+rate, "--no-collector.host")}
	probetest.Eventually(t, 60*time.Second, "HTTPS listener up", func() (bool, string) {
		code, _, err := s.get(http.MethodGet, "/-/healthy", user, password)
		return err == nil && code == http.StatusOK, fmt.Sprint(code, err)
	})
	return s
}

// writeWebConfig writes an exporter-toolkit web config with TLS (a
// certificate made here) and one basic-auth user (a bcrypt hash).
func writeWebConfig(t *testing.T) (path string, certs *testcerts.Set, user, password string) {
	t.Helper()
	dir := t.TempDir()
	certs, err := testcerts.Generate(dir)
	if err != nil {
		t.Fatal(err)
	}
	user, password = "prometheus", "scrape-pw"
	hash, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(dir, "web.yml")
	if err := os.WriteFile(path, fmt.Appendf(nil, `
tls_server_config:
  cert_file: %s
  key_file: %s
basic_auth_users:
  %s: %s
`, certs.ServerCertFile, certs.ServerKeyFile, user, hash), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, certs, user, password
}

// httpsClient returns a request function for https://addr that trusts the
// test CA; user "" sends no credentials.
func httpsClient(t *testing.T, certs *testcerts.Set, addr string) func(method, path, user, pass string) (int, string, error) {
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: certs.CAPool, MinVersion: tls.VersionTLS12},
	}}
	t.Cleanup(client.CloseIdleConnections)
	return func(method, path, user, pass string) (int, string, error) {
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
}
