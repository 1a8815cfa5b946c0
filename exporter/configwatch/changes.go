package configwatch

import (
	"encoding/json"
	"net/http"
	"sync"
	"time"
)

// Change is one changed key, as logged and as listed by GET /changes. Old
// and New are empty for a sensitive key (Sensitive is true): Kafka never
// tells its value, only that the key was set, unset or moved.
type Change struct {
	Time      time.Time `json:"time"`
	Resource  Kind      `json:"resource"`
	Broker    string    `json:"broker,omitempty"`
	Probe     string    `json:"probe,omitempty"`
	Topic     string    `json:"topic,omitempty"`
	Key       string    `json:"key"`
	Old       string    `json:"old"`
	New       string    `json:"new"`
	OldSource string    `json:"old_source,omitempty"`
	NewSource string    `json:"new_source,omitempty"`
	Sensitive bool      `json:"sensitive,omitempty"`
}

// DefaultRingSize is how many changes GET /changes keeps.
const DefaultRingSize = 256

// Ring keeps the last changes; older ones are dropped, so memory stays
// bounded however often the configuration changes.
type Ring struct {
	mu   sync.Mutex
	buf  []Change
	next int // index of the slot the next change goes to
	full bool
}

// NewRing returns a ring of n changes (at least 1).
func NewRing(n int) *Ring { return &Ring{buf: make([]Change, max(n, 1))} }

// Add appends changes in order, dropping the oldest when full.
func (r *Ring) Add(cs ...Change) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range cs {
		r.buf[r.next] = c
		r.next++
		if r.next == len(r.buf) {
			r.next, r.full = 0, true
		}
	}
}

// List returns the kept changes, newest first.
func (r *Ring) List() []Change {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := r.next
	if r.full {
		n = len(r.buf)
	}
	out := make([]Change, 0, n)
	for i := 1; i <= n; i++ {
		out = append(out, r.buf[(r.next-i+len(r.buf))%len(r.buf)])
	}
	return out
}

// ServeHTTP answers GET /changes with the kept changes as a JSON array,
// newest first.
func (r *Ring) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "Use GET.", http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(r.List())
}
