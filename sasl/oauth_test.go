package sasl

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/sasl/oauth"

	"github.com/kafka-bench/kafka_bench_exporter/httpconf"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testcerts"
)

// The client-credentials token is fetched once, shared and kept until it is
// due for refresh; a failing endpoint keeps a token that has not expired,
// and after expiry is an authentication error that names the endpoint and
// not the secret.
func TestOAuthTokenSource(t *testing.T) {
	const secret = "cl13nt-s3cret"
	var requests atomic.Int64
	var failing atomic.Bool
	// A failed write of an answer shows as the client's error.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := requests.Add(1)
		id, sec, _ := r.BasicAuth()
		if failing.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = fmt.Fprintf(w, "echo %s", sec) // a body that must not be repeated
			return
		}
		if err := r.ParseForm(); err != nil || id != "bench" || sec != secret ||
			r.PostForm.Get("grant_type") != "client_credentials" || r.PostForm.Get("scope") != "kafka" {
			w.WriteHeader(http.StatusUnauthorized)
			_ = json.NewEncoder(w).Encode(map[string]string{"error": "invalid_client"})
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": fmt.Sprintf("token-%d", n), "expires_in": 300})
	}))
	defer srv.Close()
	dir := t.TempDir()
	write(t, filepath.Join(dir, "secret"), secret+"\n")
	c := Config{Mechanism: OAuthBearer, OAuth: OAuth{TokenEndpoint: srv.URL, ClientID: "bench", ClientSecretFile: "secret", Scope: "kafka",
		Extensions: map[string]string{"logicalCluster": "lkc-1"}}}
	rt := &testRuntime{}
	src, err := resolve(t, c, dir).(oauthMaterial).newTokenSource(rt)
	if err != nil {
		t.Fatal(err)
	}
	mech := oauth.Oauth(src.auth)
	first := func() (string, error) {
		_, b, err := mech.Authenticate(context.Background(), "127.0.0.1:9093")
		return string(b), err
	}
	for range 3 {
		msg, err := first()
		if err != nil || msg != "n,,\x01auth=Bearer token-1\x01logicalCluster=lkc-1\x01\x01" {
			t.Fatalf("client-first message %q, %v", msg, err)
		}
	}
	if n := requests.Load(); n != 1 {
		t.Errorf("%d token requests for three authentications, want 1", n)
	}
	if life := src.expiresAt.Sub(src.refreshAt); life < 55*time.Second || life > 65*time.Second {
		t.Errorf("refresh %v before expiry, want 20%% of 300 s", life)
	}

	// Due for refresh while the endpoint fails: the token still valid is used.
	failing.Store(true)
	src.mu.Lock()
	src.refreshAt = time.Now().Add(-time.Second)
	src.mu.Unlock()
	if msg, err := first(); err != nil || !strings.Contains(msg, "token-1") {
		t.Errorf("refresh failed before expiry: %q, %v", msg, err)
	}
	// Expired too: the failure is the reason.
	src.mu.Lock()
	src.expiresAt, src.failedAt = time.Now().Add(-time.Second), time.Time{}
	src.mu.Unlock()
	_, err = first()
	var te *TokenError
	if !errors.As(err, &te) || !IsAuthError(err) || !strings.Contains(err.Error(), srv.URL) || !strings.Contains(err.Error(), "HTTP 503") {
		t.Errorf("expired token with the endpoint down: %v", err)
	}
	if err != nil && strings.Contains(err.Error(), secret) {
		t.Errorf("the error shows the client secret: %v", err)
	}
	if n := rt.failed.Load(); n != 2 {
		t.Errorf("token fetch failures %v, want 2", n)
	}

	// Back up, with a rotated client secret file: a new token.
	failing.Store(false)
	src.mu.Lock()
	src.failedAt = time.Time{}
	src.mu.Unlock()
	if msg, err := first(); err != nil || strings.Contains(msg, "token-1") {
		t.Errorf("after recovery: %q, %v", msg, err)
	}
}

// The lifetime of a token without expires_in is its JWT exp.
func TestJWTLifetime(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	claims := base64.RawURLEncoding.EncodeToString([]byte(`{"sub":"x","exp":1700000300}`))
	if got := jwtLifetime("h."+claims+".s", now); got != 300*time.Second {
		t.Errorf("lifetime %v", got)
	}
	if got := jwtLifetime("opaque", now); got != 0 {
		t.Errorf("opaque token lifetime %v", got)
	}
}

// A token endpoint behind a private CA that wants a client certificate is
// reached through oauth.http_config's tls_config, and not without it.
func TestOAuthTokenEndpointTLSConfig(t *testing.T) {
	certs := testcerts.New(t)
	dir := certs.Dir
	srv := certs.MTLSServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": "token-of-" + r.TLS.PeerCertificates[0].Subject.CommonName, "expires_in": 300})
	}))
	write(t, filepath.Join(dir, "secret"), "s\n")
	token := func(h httpconf.Client) (string, error) {
		c := Config{Mechanism: OAuthBearer, OAuth: OAuth{TokenEndpoint: srv.URL, ClientID: "bench", ClientSecretFile: "secret", HTTP: h}}
		src, err := resolve(t, c, dir).(oauthMaterial).newTokenSource(&testRuntime{})
		if err != nil {
			return "", err
		}
		_, b, err := oauth.Oauth(src.auth).Authenticate(context.Background(), "127.0.0.1:9093")
		return string(b), err
	}
	// Relative to the configuration's directory, as every file.
	tlsc := httpconf.TLS{CAFile: filepath.Base(certs.CAFile), CertFile: filepath.Base(certs.ClientCertFile), KeyFile: filepath.Base(certs.ClientKeyFile)}
	if msg, err := token(httpconf.Client{TLS: tlsc}); err != nil || !strings.Contains(msg, "auth=Bearer token-of-client") {
		t.Fatalf("with tls_config: %q, %v", msg, err)
	}
	noCert := tlsc
	noCert.CertFile, noCert.KeyFile = "", ""
	for name, h := range map[string]httpconf.Client{"without tls_config": {}, "without the client certificate": {TLS: noCert}} {
		if msg, err := token(h); err == nil || !IsAuthError(err) {
			t.Errorf("%s: %q, %v; want an authentication error", name, msg, err)
		}
	}
}

// OAUTHBEARER: both token sources load, and a wrong combination is one
// line naming the key and the value.
func TestOAuthSettings(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "client-secret"), "s3cr3t-client\n")
	write(t, filepath.Join(dir, "token"), "eyJ.token.sig\n")
	write(t, filepath.Join(dir, "empty"), "\n")
	load := func(oauth string) (Config, Material, error) {
		return loadSASL(dir, "{mechanism: OAUTHBEARER, oauth: "+oauth+"}")
	}
	for _, ok := range []string{
		`{token_endpoint: "https://idp.example/token", client_id: bench, client_secret_file: client-secret, scope: kafka, extensions: {logicalCluster: lkc-1}}`,
		`{token_file: token}`,
	} {
		if _, _, err := load(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for oauth, want := range map[string]string{
		`{}`: `kafka.sasl.oauth.token_endpoint = "": set token_endpoint (client credentials) or token_file with mechanism OAUTHBEARER`,
		`{token_endpoint: "https://idp.example/token", token_file: token}`:                        `kafka.sasl.oauth.token_file = "token": set token_endpoint or token_file, not both`,
		`{token_endpoint: "idp.example/token", client_id: a, client_secret_file: client-secret}`:  `kafka.sasl.oauth.token_endpoint = "idp.example/token": must be an http:// or https:// URL`,
		`{token_endpoint: "https://idp.example/token", client_secret_file: client-secret}`:        `kafka.sasl.oauth.client_id = "": must be set with token_endpoint`,
		`{token_endpoint: "https://idp.example/token", client_id: a}`:                             `kafka.sasl.oauth.client_secret_file = "": must be set with token_endpoint`,
		`{token_endpoint: "https://idp.example/token", client_id: a, client_secret_file: empty}`:  `kafka.sasl.oauth.client_secret_file = "empty": the file is empty`,
		`{token_endpoint: "https://idp.example/token", client_id: a, client_secret_file: absent}`: `kafka.sasl.oauth.client_secret_file = "absent": cannot read: no such file or directory`,
		`{token_file: token, client_id: a}`:                                                       `kafka.sasl.oauth.client_id = "a": only with token_endpoint, not with token_file`,
		`{token_file: token, extensions: {"a-b": x}}`:                                             `kafka.sasl.oauth.extensions = "a-b": extension names must be letters only and not "auth"`,
	} {
		if _, _, err := load(oauth); err == nil || !strings.HasSuffix(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("oauth %s:\n got: %v\nwant: …%s", oauth, err, want)
		}
	}
	if _, _, err := loadSASL(dir, `{mechanism: PLAIN, username: a, password: b, oauth: {token_file: token}}`); err == nil || !strings.Contains(err.Error(), `kafka.sasl.oauth = "": only with mechanism OAUTHBEARER, not PLAIN`) {
		t.Errorf("oauth with PLAIN: %v", err)
	}
}
