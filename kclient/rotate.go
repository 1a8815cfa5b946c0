package kclient

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Kinds of rotating credential files, the `kind` label of the credential
// reload metrics.
const (
	KindTLSCA             = "tls_ca"
	KindTLSClientCert     = "tls_client_cert" // certificate and key, loaded as a pair
	KindSASLPassword      = "sasl_password"
	KindOAuthToken        = "oauth_token"
	KindOAuthClientSecret = "oauth_client_secret"
)

// CredentialKinds lists every kind, in exposition order.
var CredentialKinds = []string{KindTLSCA, KindTLSClientCert, KindSASLPassword, KindOAuthToken, KindOAuthClientSecret,
	KindKerberosKeytab, KindKerberosConf}

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
	for _, k := range CredentialKinds {
		m.reloadFailed.WithLabelValues(k)
		m.reloaded.WithLabelValues(k)
	}
	reg.MustRegister(m.reloadFailed, m.reloaded, m.tokenFailed, m.tokenFetched)
	return m
}

// fileStamp identifies a version of a file without reading it: the file
// itself (os.SameFile tells a file replaced by rename, as Kubernetes
// updates a mounted secret, even with the same size and time), its size
// and time.
type fileStamp struct {
	fi   fs.FileInfo
	mod  time.Time
	size int64
}

func stampOf(fi fs.FileInfo) fileStamp {
	return fileStamp{fi: fi, mod: fi.ModTime(), size: fi.Size()}
}

// watched is material loaded from one or more files and loaded again when
// any of them changes. Files are looked at (stat) whenever the material is
// needed, which is once per new connection or re-authentication: that is
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
	tried   []fileStamp // the version last tried, loaded or not
	current T
}

func newWatched[T any](kind string, paths []string, initial T, load func([][]byte) (T, error), m *CredentialMetrics, logger *slog.Logger) *watched[T] {
	w := &watched[T]{kind: kind, paths: paths, load: load, metrics: m, logger: logger, current: initial}
	w.tried, _ = w.stamps()
	if m != nil {
		m.reloaded.WithLabelValues(kind).SetToCurrentTime()
	}
	return w
}

func (w *watched[T]) stamps() ([]fileStamp, error) {
	s := make([]fileStamp, len(w.paths))
	for i, p := range w.paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		s[i] = stampOf(fi)
	}
	return s, nil
}

// get returns the current material, reloaded first if a file changed.
func (w *watched[T]) get() T {
	w.mu.Lock()
	defer w.mu.Unlock()
	s, err := w.stamps()
	if err != nil {
		// A file that is gone for a moment (replaced by rename) or not
		// readable: keep the material; the next look tries again.
		if !sameStamps(w.tried, nil) {
			w.fail(err)
			w.tried = nil
		}
		return w.current
	}
	if sameStamps(s, w.tried) {
		return w.current
	}
	w.tried = s
	contents := make([][]byte, len(w.paths))
	for i, p := range w.paths {
		if contents[i], err = os.ReadFile(p); err != nil {
			w.fail(err)
			return w.current
		}
	}
	v, err := w.load(contents)
	if err != nil {
		w.fail(err)
		return w.current
	}
	w.current = v
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

func sameStamps(a, b []fileStamp) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].mod.Equal(b[i].mod) || a[i].size != b[i].size || !os.SameFile(a[i].fi, b[i].fi) {
			return false
		}
	}
	return true
}
