package kclient

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/sasl"
)

// A token file is re-read when it changes.
func TestOAuthTokenFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "token")
	write(t, file, []byte("tok-a\n"))
	k := config.Kafka{Brokers: []string{"127.0.0.1:9093"}, SASL: config.SASL{Mechanism: sasl.OAuthBearer,
		OAuth: sasl.OAuth{TokenFile: file}}}
	creds, err := NewCredentials(resolved(t, k), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"tok-a", "tok-bb"} {
		write(t, file, []byte(want+"\n"))
		_, b, err := creds.mech.Authenticate(context.Background(), "")
		if err != nil || !strings.Contains(string(b), "auth=Bearer "+want+"\x01") {
			t.Errorf("message %q, %v; want token %s", b, err, want)
		}
	}
}

// A token endpoint whose query carries a credential passes validation (the
// endpoint is the user's) but shows redacted in the TokenError and the
// ERROR log line, while the request itself goes to the endpoint as written.
func TestOAuthEndpointQueryRedacted(t *testing.T) {
	const secret = "qu3ry-s3cret"
	var seen atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.Store(r.URL.Query().Get("client_secret"))
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	secretFile := filepath.Join(t.TempDir(), "secret")
	write(t, secretFile, []byte("file-secret\n"))
	k := config.Kafka{Brokers: []string{"127.0.0.1:9093"}, SASL: config.SASL{Mechanism: sasl.OAuthBearer,
		OAuth: sasl.OAuth{TokenEndpoint: srv.URL + "/token?client_secret=" + secret, ClientID: "bench", ClientSecretFile: secretFile}}}
	if err := k.Validate(); err != nil {
		t.Fatal(err)
	}
	var logs strings.Builder
	creds, err := NewCredentials(resolved(t, k), nil, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = creds.mech.Authenticate(context.Background(), "127.0.0.1:9093")
	te, ok := errors.AsType[*sasl.TokenError](err)
	if !ok {
		t.Fatalf("error %v, want a TokenError", err)
	}
	if got := seen.Load(); got != secret {
		t.Errorf("the endpoint got client_secret %q, want the configured one", got)
	}
	want := srv.URL + "/token?client_secret=<secret>"
	for what, s := range map[string]string{"TokenError.Endpoint": te.Endpoint, "error": err.Error(), "log": logs.String()} {
		if strings.Contains(s, secret) || !strings.Contains(s, want) {
			t.Errorf("%s %q: want the endpoint as %s", what, s, want)
		}
	}
}
