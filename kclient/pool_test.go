package kclient

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/sasl"
)

// Every client built with one pool for the same credentials (the kafka
// block, a capacity client with its own client.id, a replica on another
// cluster with the same identity) authenticates with one token from one
// token request; another identity is another section with its own token,
// and Retain forgets the sections no longer configured.
func TestCredentialPoolSharesOneTokenPerSection(t *testing.T) {
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := requests.Add(1)
		id, _, _ := r.BasicAuth()
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": fmt.Sprintf("%s-%d", id, n), "expires_in": 300})
	}))
	defer srv.Close()
	secretFile := filepath.Join(t.TempDir(), "secret")
	write(t, secretFile, []byte("s3cret\n"))
	section := func(brokers, clientID, oauthClient string) config.Kafka {
		k := config.Kafka{Brokers: []string{brokers}, ClientID: clientID, SASL: config.SASL{Mechanism: sasl.OAuthBearer,
			OAuth: sasl.OAuth{TokenEndpoint: srv.URL, ClientID: oauthClient, ClientSecretFile: secretFile}}}
		if err := k.Validate(); err != nil {
			t.Fatal(err)
		}
		return k
	}
	main := section("127.0.0.1:9093", "kbe", "bench")
	capacity := main
	capacity.ClientID = CapacityClientID(main.ClientID, "p")
	replica := section("127.0.0.1:9094", "kbe-replica", "bench")
	other := section("127.0.0.1:9095", "kbe", "other")

	pool := NewCredentialPool(nil, nil)
	auth := func(k config.Kafka) string {
		t.Helper()
		c, err := pool.For(resolved(t, k))
		if err != nil {
			t.Fatal(err)
		}
		_, b, err := c.mech.Authenticate(context.Background(), k.Brokers[0])
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	first := auth(main)
	for _, k := range []config.Kafka{main, capacity, replica} {
		if got := auth(k); got != first {
			t.Errorf("client of %v authenticates with %q, want the shared %q", k.Brokers, got, first)
		}
	}
	// Clients built through Options share the pool's credentials too.
	for _, k := range []config.Kafka{main, capacity, replica} {
		cl, err := New(resolved(t, k), Options{Credentials: pool})
		if err != nil {
			t.Fatal(err)
		}
		cl.Close()
	}
	if n := requests.Load(); n != 1 || pool.Len() != 1 {
		t.Errorf("%d token requests and %d sections for one identity, want 1 and 1", n, pool.Len())
	}
	if got := auth(other); got == first {
		t.Errorf("another OAuth client authenticates with the first one's token %q", got)
	}
	if n := requests.Load(); n != 2 || pool.Len() != 2 {
		t.Errorf("%d token requests and %d sections for two identities, want 2 and 2", n, pool.Len())
	}
	pool.Retain(resolved(t, other))
	if pool.Len() != 1 {
		t.Errorf("%d sections after Retain of one", pool.Len())
	}
	auth(main) // made anew: a new token
	if n := requests.Load(); n != 3 {
		t.Errorf("%d token requests after the forgotten section came back, want 3", n)
	}
}
