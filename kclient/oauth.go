package kclient

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

	"github.com/twmb/franz-go/pkg/sasl/oauth"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/redact"
)

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
	// (redact.RedactURL).
	Endpoint string
	Err      error
}

func (e *TokenError) Error() string {
	return redact.RedactText(fmt.Sprintf("OAuth token from %s: %v", e.Endpoint, e.Err))
}

func (e *TokenError) Unwrap() error { return e.Err }

// tokenSource gives the OAUTHBEARER token of each authentication: from the
// token endpoint (client credentials), cached and shared by all clients
// until tokenRefreshShare of its lifetime passed, or from the token file.
type tokenSource struct {
	endpoint, clientID, scope string
	shown                     string // endpoint as logs and errors show it (redact.RedactURL)
	extensions                map[string]string
	secret                    *watched[string] // client secret file
	file                      *watched[string] // token file
	http                      *http.Client
	metrics                   *CredentialMetrics
	logger                    *slog.Logger

	mu         sync.Mutex
	token      string
	refreshAt  time.Time
	expiresAt  time.Time
	failedAt   time.Time
	lastFailed error
}

func newTokenSource(o config.OAuth, m *CredentialMetrics, logger *slog.Logger) (*tokenSource, error) {
	t := &tokenSource{
		endpoint:   o.TokenEndpoint,
		shown:      redact.RedactURL(o.TokenEndpoint),
		clientID:   o.ClientID,
		scope:      o.Scope,
		extensions: o.Extensions,
		http:       &http.Client{Timeout: tokenTimeout},
		metrics:    m,
		logger:     logger,
	}
	switch {
	case o.TokenPath() != "":
		t.file = newWatched(KindOAuthToken, []string{o.TokenPath()}, o.Token().Reveal(), loadSecret, m, logger)
	case o.ClientSecretPath() != "":
		t.secret = newWatched(KindOAuthClientSecret, []string{o.ClientSecretPath()}, o.ClientSecret().Reveal(), loadSecret, m, logger)
	default:
		return nil, errors.New("kafka.sasl.oauth: neither token_endpoint nor token_file is set")
	}
	return t, nil
}

func (t *tokenSource) auth(ctx context.Context) (oauth.Auth, error) {
	if t.file != nil {
		return oauth.Auth{Token: t.file.get(), Extensions: t.extensions}, nil
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
		if t.metrics != nil {
			t.metrics.tokenFailed.Inc()
		}
		if t.lastFailed == nil {
			t.logger.Error("OAuth token request failed", "endpoint", t.shown, "err", redact.RedactError(err))
		}
		t.failedAt, t.lastFailed = now, err
		return t.fallback(now)
	}
	if t.lastFailed != nil {
		t.logger.Info("OAuth token request succeeded again", "endpoint", t.shown)
	}
	t.lastFailed = nil
	if t.metrics != nil {
		t.metrics.tokenFetched.Inc()
	}
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
	req.SetBasicAuth(url.QueryEscape(t.clientID), url.QueryEscape(t.secret.get()))
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
