package configwatch

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
)

func keys(cs []Change) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Key
	}
	return out
}

func TestRingKeepsTheLastNewestFirst(t *testing.T) {
	r := NewRing(3)
	if got := r.List(); len(got) != 0 {
		t.Fatalf("empty ring lists %v", got)
	}
	r.Add(Change{Key: "a"}, Change{Key: "b"})
	if got, want := keys(r.List()), []string{"b", "a"}; !reflect.DeepEqual(got, want) {
		t.Errorf("List = %v, want %v", got, want)
	}
	r.Add(Change{Key: "c"}, Change{Key: "d"}, Change{Key: "e"}, Change{Key: "f"})
	if got, want := keys(r.List()), []string{"f", "e", "d"}; !reflect.DeepEqual(got, want) {
		t.Errorf("after wrapping: List = %v, want %v", got, want)
	}
	r.Add(Change{Key: "g"})
	if got, want := keys(r.List()), []string{"g", "f", "e"}; !reflect.DeepEqual(got, want) {
		t.Errorf("after wrapping twice: List = %v, want %v", got, want)
	}
}

func TestChangesHandler(t *testing.T) {
	r := NewRing(4)
	srv := httptest.NewServer(r)
	defer srv.Close()

	get := func() []map[string]any {
		t.Helper()
		resp, err := http.Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type = %q", ct)
		}
		var out []map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got := get(); got == nil || len(got) != 0 {
		t.Errorf("no changes: got %#v, want an empty JSON array", got)
	}

	r.Add(Change{Resource: KindBroker, Broker: "1", Key: "log.cleaner.threads", Old: "1", New: "2", NewSource: "DYNAMIC_BROKER_CONFIG"},
		Change{Resource: KindBroker, Broker: "1", Key: "ssl.key.password", Sensitive: true})
	got := get()
	if len(got) != 2 {
		t.Fatalf("got %d changes, want 2: %v", len(got), got)
	}
	if got[0]["key"] != "ssl.key.password" || got[0]["sensitive"] != true || got[0]["old"] != "" || got[0]["new"] != "" {
		t.Errorf("newest change = %v", got[0])
	}
	want := map[string]any{"resource": "broker", "broker": "1", "key": "log.cleaner.threads", "old": "1", "new": "2", "new_source": "DYNAMIC_BROKER_CONFIG"}
	for k, v := range want {
		if got[1][k] != v {
			t.Errorf("change[1][%q] = %v, want %v", k, got[1][k], v)
		}
	}
	if _, ok := got[1]["probe"]; ok {
		t.Errorf("a broker change has a probe field: %v", got[1])
	}

	resp, err := http.Post(srv.URL, "text/plain", strings.NewReader(""))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: status %d, want 405", resp.StatusCode)
	}
}
