package kclient

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"

	"github.com/kafka-bench/kafka_bench_exporter/config"
)

// dialTimeout is franz-go's default, kept for the TLS dialer that replaces
// its own.
const dialTimeout = 10 * time.Second

// Credentials are the TLS material and SASL mechanism of one kafka
// section, shared by all the clients built from it: files are re-read when
// they change (see watched) and an OAuth token is fetched once for all
// clients and kept until shortly before it expires. A CredentialPool keeps
// one per kafka section for every client built with it.
type Credentials struct {
	tls  *tlsMaterial
	mech sasl.Mechanism
}

// NewCredentials prepares the credentials of the resolved section c; m
// (nil: not counted) receives the reload and token metrics, logger (nil:
// discarded) their log lines.
func NewCredentials(c config.Cluster, m *CredentialMetrics, logger *slog.Logger) (*Credentials, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	creds := &Credentials{}
	tc, err := c.TLSConfig()
	if err != nil {
		return nil, err
	}
	if tc != nil {
		if creds.tls, err = newTLSMaterial(tc, c, m, logger); err != nil {
			return nil, err
		}
	}
	switch mat := c.SASL(); {
	case mat != nil:
		if creds.mech, err = mat.Mechanism(saslRuntime{metrics: m, logger: logger}); err != nil {
			return nil, err
		}
	case c.Kafka.SASL.Mechanism != "":
		return nil, fmt.Errorf("kafka.sasl: mechanism %s without its resolved material (config.Resolve)", c.Kafka.SASL.Mechanism)
	}
	return creds, nil
}

// saslRuntime gives the SASL mechanisms watched files and the token
// metrics.
type saslRuntime struct {
	metrics *CredentialMetrics
	logger  *slog.Logger
}

func (r saslRuntime) Watch(kind string, paths []string, initial any, load func([][]byte) (any, error)) (func() any, error) {
	w, err := newWatched(kind, paths, initial, load, r.metrics, r.logger)
	if err != nil {
		return nil, err
	}
	return w.get, nil
}

func (r saslRuntime) TokenFetched(ok bool) {
	switch {
	case r.metrics == nil:
	case ok:
		r.metrics.tokenFetched.Inc()
	default:
		r.metrics.tokenFailed.Inc()
	}
}

func (r saslRuntime) Logger() *slog.Logger { return r.logger }

func (c *Credentials) opts() []kgo.Opt {
	var opts []kgo.Opt
	if c.tls != nil {
		opts = append(opts, kgo.Dialer(c.tls.dial))
	}
	if c.mech != nil {
		opts = append(opts, kgo.SASL(c.mech))
	}
	return opts
}

// tlsMaterial builds the TLS configuration of each new connection from the
// current CA and client certificate files.
type tlsMaterial struct {
	base *tls.Config
	ca   *watched[*x509.CertPool]
	cert *watched[*tls.Certificate]
}

func newTLSMaterial(tc *tls.Config, c config.Cluster, m *CredentialMetrics, logger *slog.Logger) (*tlsMaterial, error) {
	mat := &tlsMaterial{base: tc}
	var err error
	// The files are PEM files or Java stores with their password files:
	// config decodes either.
	if paths, load := c.TLSCA(); len(paths) > 0 {
		if mat.ca, err = newWatched(KindTLSCA, paths, tc.RootCAs, load, m, logger); err != nil {
			return nil, err
		}
	}
	if paths, load := c.TLSClientCert(); len(paths) > 0 {
		if mat.cert, err = newWatched(KindTLSClientCert, paths, &tc.Certificates[0], load, m, logger); err != nil {
			return nil, err
		}
	}
	return mat, nil
}

// config is the TLS configuration of a new connection to host.
func (mat *tlsMaterial) config(host string) *tls.Config {
	c := mat.base.Clone()
	if c.ServerName == "" {
		c.ServerName = host
	}
	if mat.ca != nil {
		c.RootCAs = mat.ca.get()
	}
	if mat.cert != nil {
		pair := mat.cert.get()
		c.Certificates = nil
		// Asked for at the handshake, so the pair is the one current then.
		c.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return pair, nil }
	}
	return c
}

func (mat *tlsMaterial) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	d := tls.Dialer{NetDialer: &net.Dialer{Timeout: dialTimeout}, Config: mat.config(host)}
	return d.DialContext(ctx, network, addr)
}
