package kclient

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"slices"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kafka-bench/kafka_bench_exporter/sasl"
)

// Kinds of rotating credential files, the `kind` label of the credential
// reload metrics.
// The SASL mechanisms' kinds are theirs (sasl.Kinds).
const (
	KindTLSCA         = "tls_ca"
	KindTLSClientCert = "tls_client_cert" // certificate and key, loaded as a pair
)

// CredentialKinds lists every kind, in exposition order.
func CredentialKinds() []string {
	return append([]string{KindTLSCA, KindTLSClientCert}, sasl.Kinds()...)
}

// CredentialMetrics count what happens to rotating credentials: files
// re-read after a change and OAuth tokens fetched. Register them once per
// registry; every Credentials built with them reports there.
type CredentialMetrics struct {
	reloadFailed *prometheus.CounterVec
	reloaded     *prometheus.GaugeVec
	tokenFailed  prometheus.Counter
	tokenFetched prometheus.Counter
}

// NewCredentialMetrics registers the credential metrics on reg.
func NewCredentialMetrics(reg prometheus.Registerer) *CredentialMetrics {
	m := &CredentialMetrics{
		reloadFailed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kafka_bench_credentials_reload_failed_total",
			Help: "Changed credential files (TLS CA, client certificate and key, SASL password, OAuth token or client secret, Kerberos keytab or krb5.conf) that did not load; the previous material stays in use.",
		}, []string{"kind"}),
		reloaded: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "kafka_bench_credentials_last_reload_success_timestamp_seconds",
			Help: "Unix time the credential files of a kind were last loaded successfully (at start or after a change); 0 for a kind not configured.",
		}, []string{"kind"}),
		tokenFailed: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "kafka_bench_oauth_token_fetch_failed_total",
			Help: "OAuth token requests to kafka.sasl.oauth.token_endpoint that failed.",
		}),
		tokenFetched: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "kafka_bench_oauth_token_fetches_total",
			Help: "OAuth tokens fetched from kafka.sasl.oauth.token_endpoint.",
		}),
	}
	// Every kind is exposed from the start: a failure counter that appears
	// only with its first failure cannot be rated; 0 is "not loaded".
	for _, k := range CredentialKinds() {
		m.reloadFailed.WithLabelValues(k)
		m.reloaded.WithLabelValues(k)
	}
	reg.MustRegister(m.reloadFailed, m.reloaded, m.tokenFailed, m.tokenFetched)
	return m
}

// version identifies the contents of a set of files: the SHA-256 of each.
// A stat (size, time, inode) would miss a rewrite of the same size within
// the file system's time granularity; the files are small (a key, a
// certificate chain, a password), so reading them costs little.
type version [][sha256.Size]byte

func (v version) equal(o version) bool { return slices.Equal(v, o) }

// watched is material loaded from one or more files and loaded again when
// the contents of any of them change. Files are read whenever the material
// is needed, which is once per new connection or re-authentication: that is
// cheap, and a rotated file is used by the very next connection, with no
// background goroutine to stop. A changed version that does not load (a
// half-written key, an empty password file) keeps the previous material,
// is logged once and counted; the same version is not tried again.
type watched[T any] struct {
	kind    string
	paths   []string
	load    func([][]byte) (T, error)
	metrics *CredentialMetrics
	logger  *slog.Logger

	mu      sync.Mutex
	tried   version // the version last tried, loaded or not; nil after a read failed
	current T
}

// newWatched starts from initial, the material the resolve step read. The
// files must be readable now: a client is not built on credentials whose
// files are gone (a probe retries building it until they are back).
func newWatched[T any](kind string, paths []string, initial T, load func([][]byte) (T, error), m *CredentialMetrics, logger *slog.Logger) (*watched[T], error) {
	w := &watched[T]{kind: kind, paths: paths, load: load, metrics: m, logger: logger, current: initial}
	var err error
	if _, w.tried, err = w.read(); err != nil {
		return nil, err
	}
	if m != nil {
		m.reloaded.WithLabelValues(kind).SetToCurrentTime()
	}
	return w, nil
}

// read is the contents of the files and their version.
func (w *watched[T]) read() ([][]byte, version, error) {
	contents := make([][]byte, len(w.paths))
	v := make(version, len(w.paths))
	for i, p := range w.paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, nil, err
		}
		contents[i], v[i] = b, sha256.Sum256(b)
	}
	return contents, v, nil
}

// get returns the current material, reloaded first if a file changed.
func (w *watched[T]) get() T {
	w.mu.Lock()
	defer w.mu.Unlock()
	contents, v, err := w.read()
	if err != nil {
		// A file that is gone for a moment (replaced by rename) or not
		// readable: keep the material; the next look tries again.
		if w.tried != nil {
			w.fail(err)
			w.tried = nil
		}
		return w.current
	}
	if v.equal(w.tried) {
		return w.current
	}
	w.tried = v
	loaded, err := w.load(contents)
	if err != nil {
		w.fail(err)
		return w.current
	}
	w.current = loaded
	if w.metrics != nil {
		w.metrics.reloaded.WithLabelValues(w.kind).SetToCurrentTime()
	}
	w.logger.Info("credentials reloaded", "kind", w.kind, "files", w.paths)
	return w.current
}

func (w *watched[T]) fail(err error) {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		err = fmt.Errorf("%s: %w", pe.Path, pe.Err)
	}
	if w.metrics != nil {
		w.metrics.reloadFailed.WithLabelValues(w.kind).Inc()
	}
	w.logger.Error("changed credential file does not load; the previous one stays in use", "kind", w.kind, "files", w.paths, "err", err)
}
