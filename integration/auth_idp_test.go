package integration

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// testIdP is a small OpenID provider on loopback: a JWKS endpoint (always
// up, the broker fetches keys there) and a client-credentials token
// endpoint issuing short-lived RS256 JWTs (issuer idpIssuer, for one
// audience), which a test can take down and bring back on the same address.
// idpIssuer is the test IdP's name in its tokens (iss).
const idpIssuer = "kafka-bench-test-idp"

type testIdP struct {
	t          *testing.T
	key        *rsa.PrivateKey
	lifetime   time.Duration
	audience   string // the tokens' aud claim
	clientID   string
	secret     string
	JWKSURL    string
	TokenURL   string
	tokenAddr  string
	issued     atomic.Int64
	mu         sync.Mutex
	tokenSrv   *http.Server
	tokenAlive bool
}

func newTestIdP(t *testing.T, lifetime time.Duration, audience, clientID, secret string) *testIdP {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	idp := &testIdP{t: t, key: key, lifetime: lifetime, audience: audience, clientID: clientID, secret: secret}
	jwks, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	idp.JWKSURL = "http://" + jwks.Addr().String() + "/jwks"
	jsrv := &http.Server{Handler: http.HandlerFunc(idp.serveJWKS)}
	// Serve returns http.ErrServerClosed when the cleanup closes it.
	go func() { _ = jsrv.Serve(jwks) }()
	t.Cleanup(func() { _ = jsrv.Close() })
	tl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	idp.tokenAddr = tl.Addr().String()
	idp.TokenURL = "http://" + idp.tokenAddr + "/token"
	idp.serveTokens(tl)
	t.Cleanup(idp.Down)
	return idp
}

// The IdP's handlers drop a failed write of their answer: the client that
// asked gets a broken body, and that is where a test would fail.
func (idp *testIdP) serveJWKS(w http.ResponseWriter, _ *http.Request) {
	b64 := base64.RawURLEncoding.EncodeToString
	_ = json.NewEncoder(w).Encode(map[string]any{"keys": []map[string]string{{
		"kty": "RSA", "kid": "k1", "use": "sig", "alg": "RS256",
		"n": b64(idp.key.N.Bytes()), "e": b64(big.NewInt(int64(idp.key.E)).Bytes()),
	}}})
}

func (idp *testIdP) serveTokens(l net.Listener) {
	srv := &http.Server{Handler: http.HandlerFunc(idp.token)}
	idp.mu.Lock()
	idp.tokenSrv, idp.tokenAlive = srv, true
	idp.mu.Unlock()
	go func() { _ = srv.Serve(l) }() // http.ErrServerClosed once Down closes it
}

// Down closes the token endpoint: connections are refused.
func (idp *testIdP) Down() {
	idp.mu.Lock()
	defer idp.mu.Unlock()
	if idp.tokenAlive {
		_ = idp.tokenSrv.Close() // refused connections are the point
		idp.tokenAlive = false
	}
}

// Up serves the token endpoint again on its address.
func (idp *testIdP) Up() {
	idp.t.Helper()
	l, err := net.Listen("tcp", idp.tokenAddr)
	if err != nil {
		idp.t.Fatalf("token endpoint back on %s: %v", idp.tokenAddr, err)
	}
	idp.serveTokens(l)
}

func (idp *testIdP) token(w http.ResponseWriter, r *http.Request) {
	id, secret, ok := r.BasicAuth()
	if r.Method != http.MethodPost || r.ParseForm() != nil || r.PostForm.Get("grant_type") != "client_credentials" {
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(map[string]string{"error": "unsupported_grant_type"})
		return
	}
	if !ok || id != idp.clientID || secret != idp.secret {
		w.WriteHeader(http.StatusUnauthorized)
		_ = json.NewEncoder(w).Encode(map[string]string{"error": "invalid_client"})
		return
	}
	now := time.Now()
	b64 := base64.RawURLEncoding.EncodeToString
	header, _ := json.Marshal(map[string]string{"alg": "RS256", "typ": "JWT", "kid": "k1"})
	claims, _ := json.Marshal(map[string]any{"sub": id, "iss": idpIssuer, "aud": idp.audience, "iat": now.Unix(),
		"exp": now.Add(idp.lifetime).Unix(), "scope": r.PostForm.Get("scope")})
	signing := b64(header) + "." + b64(claims)
	sum := sha256.Sum256([]byte(signing))
	sig, err := rsa.SignPKCS1v15(rand.Reader, idp.key, crypto.SHA256, sum[:])
	if err != nil {
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	idp.issued.Add(1)
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"access_token": signing + "." + b64(sig), "token_type": "Bearer",
		"expires_in": int(idp.lifetime / time.Second)})
}
