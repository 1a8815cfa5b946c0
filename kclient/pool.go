package kclient

import (
	"log/slog"
	"reflect"
	"sync"

	"github.com/kafka-bench/kafka_bench_exporter/config"
)

// CredentialPool keeps one Credentials per distinct kafka section (its tls
// and sasl settings, files' contents included), made when a client of the
// section is first built from it. Every client built with the pool shares
// them: one OAuth token fetch per section and refresh period, and one view
// of each rotating file, whether the client is a probe's, its replica
// reader's, its capacity canary's, the configuration watcher's or bench's.
// A process makes one pool and passes it in Options.
type CredentialPool struct {
	metrics *CredentialMetrics
	logger  *slog.Logger

	mu      sync.Mutex
	entries []*poolEntry
}

type poolEntry struct {
	id    sectionID
	creds *Credentials
}

// sectionID is what Credentials are built from: the tls and sasl settings
// and their resolved material; brokers and client.id do not matter (a
// capacity client's client.id differs, and a replica on another cluster
// with the same identity may share its token).
type sectionID config.Cluster

func idOf(c config.Cluster) sectionID {
	c.Kafka = config.Kafka{TLS: c.Kafka.TLS, SASL: c.Kafka.SASL}
	return sectionID(c)
}

// NewCredentialPool makes an empty pool; m (nil: not counted) receives the
// reload and token metrics of every section, logger (nil: discarded) their
// log lines.
func NewCredentialPool(m *CredentialMetrics, logger *slog.Logger) *CredentialPool {
	return &CredentialPool{metrics: m, logger: logger}
}

// For returns the credentials of c's section, made on first use. A nil
// pool makes new ones each time, shared by no other client.
func (p *CredentialPool) For(k config.Cluster) (*Credentials, error) {
	if p == nil {
		return NewCredentials(k, nil, nil)
	}
	id := idOf(k)
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, e := range p.entries {
		// The material holds the files' contents: a file that changed
		// between two resolves makes another section.
		if reflect.DeepEqual(e.id, id) {
			return e.creds, nil
		}
	}
	c, err := NewCredentials(k, p.metrics, p.logger)
	if err != nil {
		return nil, err
	}
	p.entries = append(p.entries, &poolEntry{id: id, creds: c})
	return c, nil
}

// Retain forgets the credentials of every section but those of ks (the
// sections of the configuration now applied), so that reloads do not
// accumulate them; clients still running on forgotten ones keep them.
func (p *CredentialPool) Retain(ks ...config.Cluster) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	kept := p.entries[:0]
	for _, e := range p.entries {
		for _, k := range ks {
			if reflect.DeepEqual(e.id, idOf(k)) {
				kept = append(kept, e)
				break
			}
		}
	}
	clear(p.entries[len(kept):])
	p.entries = kept
}

// Len is the number of sections the pool holds.
func (p *CredentialPool) Len() int {
	if p == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.entries)
}
