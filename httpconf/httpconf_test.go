package httpconf

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/internal/testcerts"
)

// readDir reads files as callers do, naming key and path in the error.
func readDir() func(key, path string) ([]byte, error) {
	return func(key, path string) ([]byte, error) {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, &Error{Key: key, Value: path, Problem: "cannot read"}
		}
		return b, nil
	}
}

func write(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// get builds the block's client and requests url, returning the body.
func get(t *testing.T, c Client, url string) (string, error) {
	t.Helper()
	r, err := c.Resolve(readDir())
	if err != nil {
		return "", err
	}
	cl, err := r.NewClient("test", 5*time.Second)
	if err != nil {
		return "", err
	}
	defer cl.CloseIdleConnections()
	resp, err := cl.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s: %s", resp.Status, b)
	}
	return string(b), err
}

// TestClientTLSAndBasicAuth: a server with a private CA that wants a
// client certificate and HTTP Basic answers only the block that sets all
// three; each one left out fails.
func TestClientTLSAndBasicAuth(t *testing.T) {
	certs := testcerts.New(t)
	dir := certs.Dir
	srv := certs.MTLSServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, p, ok := r.BasicAuth()
		if !ok || u != "prometheus" || p != "scrape-pw" {
			http.Error(w, "who?", http.StatusUnauthorized)
			return
		}
		_, _ = fmt.Fprint(w, "hello ", r.TLS.PeerCertificates[0].Subject.CommonName)
	}))
	pw := write(t, dir, "pw", "scrape-pw\n")

	full := Client{
		BasicAuth: &BasicAuth{Username: "prometheus", PasswordFile: pw},
		TLS:       TLS{CAFile: certs.CAFile, CertFile: certs.ClientCertFile, KeyFile: certs.ClientKeyFile},
	}
	if err := full.Validate(Options{}); err != nil {
		t.Fatal(err)
	}
	if body, err := get(t, full, srv.URL); err != nil || body != "hello client" {
		t.Fatalf("the full block: %q, %v", body, err)
	}
	noCA, noCert, noAuth := full, full, full
	noCA.TLS.CAFile = ""
	noCert.TLS.CertFile, noCert.TLS.KeyFile = "", ""
	noAuth.BasicAuth = nil
	for name, c := range map[string]Client{"without ca_file": noCA, "without a client certificate": noCert, "without basic_auth": noAuth} {
		if body, err := get(t, c, srv.URL); err == nil {
			t.Errorf("%s: the server answered %q", name, body)
		}
	}
}

// TestProxyURL: requests go through proxy_url, and not to a host of
// no_proxy.
func TestProxyURL(t *testing.T) {
	var proxied atomic.Int32
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxied.Add(1)
		_, _ = fmt.Fprint(w, "via proxy for ", r.Host)
	}))
	defer proxy.Close()
	c := Client{ProxyURL: proxy.URL}
	if err := c.Validate(Options{}); err != nil {
		t.Fatal(err)
	}
	if body, err := get(t, c, "http://kafka1.test:9100/metrics"); err != nil || body != "via proxy for kafka1.test:9100" || proxied.Load() != 1 {
		t.Fatalf("through the proxy: %q, %v (proxied %d)", body, err, proxied.Load())
	}
	direct := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = fmt.Fprint(w, "direct") }))
	defer direct.Close()
	c.NoProxy = "127.0.0.1"
	if body, err := get(t, c, direct.URL); err != nil || body != "direct" || proxied.Load() != 1 {
		t.Fatalf("no_proxy: %q, %v (proxied %d)", body, err, proxied.Load())
	}
}

// TestResolveErrors: unreadable and unusable files are errors naming the
// key; a resolve of unchanged files equals the last one, of a changed file
// not.
func TestResolveErrors(t *testing.T) {
	certs := testcerts.New(t)
	dir := certs.Dir
	notPEM := write(t, dir, "not.pem", "not a certificate\n")
	empty := write(t, dir, "empty", "\n")
	for _, tc := range []struct {
		name string
		c    Client
		key  string
	}{
		{"missing CA", Client{TLS: TLS{CAFile: filepath.Join(dir, "none.pem")}}, "tls_config.ca_file"},
		{"CA not PEM", Client{TLS: TLS{CAFile: notPEM}}, "tls_config"},
		{"key of another certificate", Client{TLS: TLS{CertFile: certs.ClientCertFile, KeyFile: certs.ServerKeyFile}}, "tls_config"},
		{"empty password", Client{BasicAuth: &BasicAuth{Username: "u", PasswordFile: empty}}, "basic_auth.password_file"},
		{"missing password", Client{BasicAuth: &BasicAuth{Username: "u", PasswordFile: filepath.Join(dir, "none")}}, "basic_auth.password_file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.c.Validate(Options{}); err != nil {
				t.Fatalf("validate: %v", err)
			}
			_, err := tc.c.Resolve(readDir())
			e, ok := errors.AsType[*Error](err)
			if !ok || e.Key != tc.key {
				t.Fatalf("resolve: %v, want an error of %s", err, tc.key)
			}
		})
	}

	ca := write(t, dir, "ca.pem", string(must(os.ReadFile(certs.CAFile))))
	c := Client{TLS: TLS{CAFile: ca}}
	a, err := c.Resolve(readDir())
	if err != nil {
		t.Fatal(err)
	}
	if b := must(c.Resolve(readDir())); !reflect.DeepEqual(a, b) {
		t.Error("two resolves of unchanged files differ")
	}
	other, err := testcerts.Generate(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, "ca.pem", string(must(os.ReadFile(other.CAFile))))
	if b := must(c.Resolve(readDir())); reflect.DeepEqual(a, b) {
		t.Error("a changed CA file resolves as the old one")
	}
}

// TestResolvedIsZero: only Resolve makes a Resolved that is not zero, an
// empty block's included.
func TestResolvedIsZero(t *testing.T) {
	if !(Resolved{}).IsZero() {
		t.Error("the zero Resolved is not zero")
	}
	if must((&Client{}).Resolve(readDir())).IsZero() {
		t.Error("an empty block's Resolved is zero")
	}
}

// TestValidate: each refusal names its key; Options.NoBasicAuth refuses
// basic_auth in the caller's words.
func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		c       Client
		o       Options
		key     string
		problem string
	}{
		{Client{BasicAuth: &BasicAuth{Username: "u", PasswordFile: "p"}}, Options{NoBasicAuth: "not here"}, "basic_auth.username", "not here"},
		{Client{BasicAuth: &BasicAuth{PasswordFile: "p"}}, Options{}, "basic_auth.username", "must be set"},
		{Client{TLS: TLS{KeyFile: "k"}}, Options{}, "tls_config.cert_file", "must be set with key_file"},
		{Client{TLS: TLS{MinVersion: "1.3"}}, Options{}, "tls_config.min_version", "must be one of"},
		{Client{ProxyURL: "ftp://proxy"}, Options{}, "proxy_url", "must be an http://"},
		{Client{NoProxy: "10.0.0.0/8"}, Options{}, "proxy_url", "no_proxy"},
		{Client{ProxyURL: "http://proxy:3128", ProxyFromEnvironment: true}, Options{}, "proxy_url", "proxy_from_environment"},
	} {
		err := tc.c.Validate(tc.o)
		e, ok := errors.AsType[*Error](err)
		if !ok || e.Key != tc.key || !strings.Contains(e.Problem, tc.problem) {
			t.Errorf("%+v: %v, want %s: ...%s...", tc.c, err, tc.key, tc.problem)
		}
	}
	if err := (&Client{}).Validate(Options{}); err != nil {
		t.Errorf("the empty block: %v", err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
