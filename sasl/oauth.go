package sasl

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	kgosasl "github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/oauth"

	"github.com/kafka-bench/kafka_bench_exporter/httpconf"
	"github.com/kafka-bench/kafka_bench_exporter/redact"
)

// OAuthBearer is the OAUTHBEARER mechanism (kafka.sasl.oauth).
const OAuthBearer = "OAUTHBEARER"

// Kinds of the OAuth files, for the credential reload metrics.
const (
	KindOAuthToken        = "oauth_token"
	KindOAuthClientSecret = "oauth_client_secret"
)

type oauthMechanism struct{}

func (oauthMechanism) names() []string                { return []string{OAuthBearer} }
func (oauthMechanism) kinds() []string                { return []string{KindOAuthToken, KindOAuthClientSecret} }
func (oauthMechanism) block(c *Config) (string, bool) { return "oauth", c.OAuth.set() }

func (oauthMechanism) validate(c *Config) error {
	if err := c.noPassword("the token names the principal", "set kafka.sasl.oauth"); err != nil {
		return err
	}
	return c.OAuth.validate()
}

func (oauthMechanism) resolve(c *Config, r Reader) (Material, error) {
	m := oauthMaterial{settings: c.OAuth}
	var err error
	if m.http, err = c.OAuth.HTTP.Resolve(func(key, path string) ([]byte, error) {
		b, _, err := r.ReadFile("oauth.http_config."+key, path)
		return b, err
	}); err != nil {
		return nil, httpError(err)
	}
	if c.OAuth.TokenFile != "" {
		m.token, m.tokenPath, err = readSecret(r, "oauth.token_file", c.OAuth.TokenFile)
	} else {
		m.secret, m.secretPath, err = readSecret(r, "oauth.client_secret_file", c.OAuth.ClientSecretFile)
	}
	if err != nil {
		return nil, err
	}
	return m, nil
}

// oauthMaterial is the token file or the client secret file as read, and
// its absolute path.
type oauthMaterial struct {
	settings              OAuth
	http                  httpconf.Resolved // the token endpoint's client, its files read
	tokenPath, secretPath string
	token, secret         redact.Secret
}

// Mechanism gives the token of each authentication from one token source:
// every client of the section shares its cached token (kclient builds a
// section's mechanism once).
func (m oauthMaterial) Mechanism(rt Runtime) (kgosasl.Mechanism, error) {
	t, err := m.newTokenSource(rt)
	if err != nil {
		return nil, err
	}
	return oauth.Oauth(t.auth), nil
}

// OAuth configures OAUTHBEARER (kafka.sasl.oauth): a token from an OAuth
// token endpoint with the client-credentials grant, or a token another
// process keeps fresh in a file. The secrets live in files only, so that
// they can rotate and never appear in the configuration.
type OAuth struct {
	// TokenEndpoint is the URL of the token endpoint (client credentials).
	TokenEndpoint    string `yaml:"token_endpoint" values:"exactly one of it and {token_file}" doc:"OAUTHBEARER: token URL (client-credentials grant)"`
	ClientID         string `yaml:"client_id" doc:"client of the token endpoint (HTTP Basic)"`
	ClientSecretFile string `yaml:"client_secret_file" doc:"the token endpoint client's secret, from a file re-read when it changes"`
	// Scope is sent with the token request when set.
	Scope string `yaml:"scope" doc:"scope of the token request (not sent when empty)"`
	// Extensions are SASL extensions sent with the token (KIP-342), such
	// as Confluent Cloud's logicalCluster and identityPoolId.
	Extensions map[string]string `yaml:"extensions" values:"names of letters only" doc:"SASL extensions sent with the token (KIP-342)"`
	// TokenFile holds a token (a JWT) written by another process.
	TokenFile string `yaml:"token_file" values:"exactly one of it and {token_endpoint}" doc:"OAUTHBEARER: a token (JWT) another process keeps fresh; re-read when it changes"`
	// HTTP is the connection to the token endpoint: its TLS (a private
	// CA, a client certificate) and proxy, as Prometheus' http_config.
	// basic_auth is refused: the client-credentials grant authenticates.
	HTTP httpconf.Client `yaml:"http_config"`
}

func (o *OAuth) set() bool {
	return o.TokenEndpoint != "" || o.ClientID != "" || o.ClientSecretFile != "" || o.Scope != "" ||
		len(o.Extensions) > 0 || o.TokenFile != "" || !o.HTTP.IsZero()
}

// validate checks kafka.sasl.oauth for mechanism OAUTHBEARER.
func (o *OAuth) validate() error {
	const k = "oauth."
	switch {
	case o.TokenEndpoint == "" && o.TokenFile == "":
		return fieldError(k+"token_endpoint", "", "set token_endpoint (client credentials) or token_file with mechanism OAUTHBEARER")
	case o.TokenEndpoint != "" && o.TokenFile != "":
		return fieldError(k+"token_file", o.TokenFile, "set token_endpoint or token_file, not both")
	}
	for name := range o.Extensions {
		// RFC 7628: key = 1*(ALPHA); "auth" is reserved for the token.
		if name == "" || name == "auth" || strings.IndexFunc(name, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') }) >= 0 {
			return fieldError(k+"extensions", name, "extension names must be letters only and not \"auth\"")
		}
	}
	if o.TokenFile != "" {
		for _, kv := range [][2]string{{"client_id", o.ClientID}, {"client_secret_file", o.ClientSecretFile}, {"scope", o.Scope}} {
			if kv[1] != "" {
				return fieldError(k+kv[0], kv[1], "only with token_endpoint, not with token_file")
			}
		}
		if !o.HTTP.IsZero() {
			return fieldError(k+"http_config", "", "only with token_endpoint, not with token_file")
		}
		return nil
	}
	u, err := url.Parse(o.TokenEndpoint)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fieldError(k+"token_endpoint", o.TokenEndpoint, "must be an http:// or https:// URL")
	}
	if u.User != nil {
		return fieldError(k+"token_endpoint", o.TokenEndpoint, "must not hold credentials: use client_id and client_secret_file")
	}
	if o.ClientID == "" {
		return fieldError(k+"client_id", "", "must be set with token_endpoint")
	}
	if o.ClientSecretFile == "" {
		return fieldError(k+"client_secret_file", "", "must be set with token_endpoint")
	}
	if err := o.HTTP.Validate(httpconf.Options{NoBasicAuth: "not with the token endpoint: the client-credentials grant authenticates with client_id and client_secret_file"}); err != nil {
		return httpError(err)
	}
	if u.Scheme == "http" && !o.HTTP.TLS.IsZero() {
		return fieldError(k+"http_config.tls_config", "", "the token endpoint is http://: use https:// for TLS")
	}
	return nil
}

// httpError names an http_config problem by its full key.
func httpError(err error) error {
	if e, ok := errors.AsType[*httpconf.Error](err); ok {
		return fieldError("oauth.http_config."+e.Key, e.Value, e.Problem)
	}
	return err
}

const (
	// tokenTimeout bounds one token request.
	tokenTimeout = 10 * time.Second
	// tokenRetry is the least time between two failed token requests, so
	// that every client's reconnect does not hit a failing endpoint.
	tokenRetry = time.Second
	// tokenRefreshShare: a token is fetched again once this share of its
	// lifetime has passed, well before it expires.
	tokenRefreshShare = 0.8
	// defaultTokenLifetime is assumed for a token that says neither
	// expires_in nor exp.
	defaultTokenLifetime = time.Minute
)

// TokenError is an OAuth token that could not be had: the token endpoint
// failed and the last token expired. Probes report it as an authentication
// failure. It never holds the client secret, nor credentials in the
// endpoint's URL.
type TokenError struct {
	// Endpoint is the token endpoint with its credentials redacted
	// (redact.URL).
	Endpoint string
	Err      error
}

func (e *TokenError) Error() string {
	return redact.Text(fmt.Sprintf("OAuth token from %s: %v", e.Endpoint, e.Err))
}

func (e *TokenError) Unwrap() error { return e.Err }

func (*TokenError) credentials() {}

// tokenSource gives the OAUTHBEARER token of each authentication: from the
// token endpoint (client credentials), cached and shared by all clients
// until tokenRefreshShare of its lifetime passed, or from the token file.
type tokenSource struct {
	endpoint, clientID, scope string
	shown                     string // endpoint as logs and errors show it (redact.URL)
	extensions                map[string]string
	secret                    func() string // client secret file
	file                      func() string // token file
	http                      *http.Client
	rt                        Runtime
	logger                    *slog.Logger

	mu         sync.Mutex
	token      string
	refreshAt  time.Time
	expiresAt  time.Time
	failedAt   time.Time
	lastFailed error
}

func (m oauthMaterial) newTokenSource(rt Runtime) (*tokenSource, error) {
	hc, err := m.http.NewClient("oauth", tokenTimeout)
	if err != nil {
		return nil, err
	}
	t := &tokenSource{
		endpoint:   m.settings.TokenEndpoint,
		shown:      redact.URL(m.settings.TokenEndpoint),
		clientID:   m.settings.ClientID,
		scope:      m.settings.Scope,
		extensions: m.settings.Extensions,
		http:       hc,
		rt:         rt,
		logger:     rt.Logger(),
	}
	if m.tokenPath != "" {
		t.file, err = watch(rt, KindOAuthToken, []string{m.tokenPath}, m.token.Reveal(), loadSecret)
	} else {
		t.secret, err = watch(rt, KindOAuthClientSecret, []string{m.secretPath}, m.secret.Reveal(), loadSecret)
	}
	if err != nil {
		return nil, err
	}
	return t, nil
}

func (t *tokenSource) auth(ctx context.Context) (oauth.Auth, error) {
	if t.file != nil {
		return oauth.Auth{Token: t.file(), Extensions: t.extensions}, nil
	}
	tok, err := t.current(ctx)
	if err != nil {
		return oauth.Auth{}, err
	}
	return oauth.Auth{Token: tok, Extensions: t.extensions}, nil
}

// current returns the cached token, or fetches one when it is due for
// refresh. A failed refresh keeps a token that has not expired yet.
func (t *tokenSource) current(ctx context.Context) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := time.Now()
	if t.token != "" && now.Before(t.refreshAt) {
		return t.token, nil
	}
	if t.lastFailed != nil && now.Sub(t.failedAt) < tokenRetry {
		return t.fallback(now)
	}
	tok, lifetime, err := t.fetch(ctx)
	if err != nil {
		t.rt.TokenFetched(false)
		if t.lastFailed == nil {
			t.logger.Error("OAuth token request failed", "endpoint", t.shown, "err", redact.Error(err))
		}
		t.failedAt, t.lastFailed = now, err
		return t.fallback(now)
	}
	if t.lastFailed != nil {
		t.logger.Info("OAuth token request succeeded again", "endpoint", t.shown)
	}
	t.lastFailed = nil
	t.rt.TokenFetched(true)
	t.token = tok
	t.expiresAt = now.Add(lifetime)
	t.refreshAt = now.Add(time.Duration(float64(lifetime) * tokenRefreshShare))
	return tok, nil
}

// fallback is the cached token while it is valid, else the fetch error.
func (t *tokenSource) fallback(now time.Time) (string, error) {
	if t.token != "" && now.Before(t.expiresAt) {
		return t.token, nil
	}
	return "", &TokenError{Endpoint: t.shown, Err: t.lastFailed}
}

// fetch asks the token endpoint for a token with the client-credentials
// grant (RFC 6749 4.4), the client authenticated with HTTP Basic as Kafka's
// own client does.
func (t *tokenSource) fetch(ctx context.Context) (string, time.Duration, error) {
	form := url.Values{"grant_type": {"client_credentials"}}
	if t.scope != "" {
		form.Set("scope", t.scope)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return "", 0, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.SetBasicAuth(url.QueryEscape(t.clientID), url.QueryEscape(t.secret()))
	resp, err := t.http.Do(req)
	if err != nil {
		if ue, ok := errors.AsType[*url.Error](err); ok {
			err = ue.Err // the URL is in TokenError already
		}
		return "", 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", 0, err
	}
	var r struct {
		AccessToken string          `json:"access_token"`
		ExpiresIn   json.RawMessage `json:"expires_in"`
		Error       string          `json:"error"`
		Description string          `json:"error_description"`
	}
	jsonErr := json.Unmarshal(body, &r)
	if resp.StatusCode != http.StatusOK {
		// Only the standard error fields: a body might echo what was sent.
		if r.Error != "" {
			return "", 0, fmt.Errorf("HTTP %d: %s %s", resp.StatusCode, r.Error, r.Description)
		}
		return "", 0, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	if jsonErr != nil || r.AccessToken == "" {
		return "", 0, errors.New("the response has no access_token")
	}
	lifetime := expiresIn(r.ExpiresIn)
	if lifetime <= 0 {
		lifetime = jwtLifetime(r.AccessToken, time.Now())
	}
	if lifetime <= 0 {
		lifetime = defaultTokenLifetime
	}
	return r.AccessToken, lifetime, nil
}

// expiresIn reads expires_in, a number of seconds (some servers send it as
// a string).
func expiresIn(raw json.RawMessage) time.Duration {
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return 0
		}
		n = json.Number(s)
	}
	f, err := n.Float64()
	if err != nil {
		return 0
	}
	return time.Duration(f * float64(time.Second))
}

// jwtLifetime is the time until a JWT's exp claim; 0 when the token is no
// JWT or has no exp. The signature is the broker's to check.
func jwtLifetime(token string, now time.Time) time.Duration {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return 0
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return 0
	}
	var claims struct {
		Exp float64 `json:"exp"`
	}
	if json.Unmarshal(payload, &claims) != nil || claims.Exp == 0 {
		return 0
	}
	return time.Unix(0, int64(claims.Exp*1e9)).Sub(now)
}
