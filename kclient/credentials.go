package kclient

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/oauth"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/kafka-bench/kafka_bench_exporter/config"
)

// dialTimeout is franz-go's default, kept for the TLS dialer that replaces
// its own.
const dialTimeout = 10 * time.Second

// Credentials are the TLS material and SASL secrets of one kafka section,
// shared by all the clients built from it: files are re-read when they
// change (see watched) and an OAuth token is fetched once for all clients
// and kept until shortly before it expires. A CredentialPool keeps one per
// kafka section for every client built with it.
type Credentials struct {
	tls    *tlsMaterial
	mech   sasl.Mechanism
	tokens *tokenSource // OAUTHBEARER
}

// NewCredentials prepares the credentials of k, which must be validated;
// m (nil: not counted) receives the reload and token metrics, logger (nil:
// discarded) their log lines.
func NewCredentials(k config.Kafka, m *CredentialMetrics, logger *slog.Logger) (*Credentials, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	c := &Credentials{}
	tc, err := k.TLS.ClientConfig()
	if err != nil {
		return nil, err
	}
	if tc != nil {
		c.tls = newTLSMaterial(tc, k.TLS, m, logger)
	}
	if k.SASL.Mechanism == config.SASLOAuthBearer {
		c.tokens, err = newTokenSource(k.SASL.OAuth, m, logger)
		if err != nil {
			return nil, err
		}
		c.mech = oauth.Oauth(c.tokens.auth)
		return c, nil
	}
	if c.mech, err = newMechanism(k.SASL, m, logger); err != nil {
		return nil, err
	}
	return c, nil
}

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

func newTLSMaterial(tc *tls.Config, t config.TLS, m *CredentialMetrics, logger *slog.Logger) *tlsMaterial {
	caPath, certPath, keyPath := t.Paths()
	mat := &tlsMaterial{base: tc}
	if caPath != "" {
		mat.ca = newWatched(KindTLSCA, []string{caPath}, tc.RootCAs, loadCA, m, logger)
	}
	if certPath != "" {
		mat.cert = newWatched(KindTLSClientCert, []string{certPath, keyPath}, &tc.Certificates[0], loadPair, m, logger)
	}
	return mat
}

func loadCA(b [][]byte) (*x509.CertPool, error) {
	p := x509.NewCertPool()
	if !p.AppendCertsFromPEM(b[0]) {
		return nil, errors.New("no PEM certificate in the file")
	}
	return p, nil
}

func loadPair(b [][]byte) (*tls.Certificate, error) {
	pair, err := tls.X509KeyPair(b[0], b[1])
	if err != nil {
		return nil, fmt.Errorf("certificate and key do not load as a pair: %w", err)
	}
	return &pair, nil
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

// newMechanism is the SASL mechanism of s; nil without one.
func newMechanism(s config.SASL, m *CredentialMetrics, logger *slog.Logger) (sasl.Mechanism, error) {
	switch s.Mechanism {
	case config.SASLGSSAPI:
		return newKerberos(s, m, logger)
	case config.SASLAWSMSKIAM:
		return newAWSIAM(s.AWS, "kafka_bench_exporter")
	}
	user := s.Username
	password := func() string { return s.Secret().Reveal() }
	if p := s.PasswordPath(); p != "" {
		w := newWatched(KindSASLPassword, []string{p}, s.Secret().Reveal(), loadSecret, m, logger)
		password = w.get
	}
	switch s.Mechanism {
	case config.SASLPlain:
		return plain.Plain(func(context.Context) (plain.Auth, error) {
			return plain.Auth{User: user, Pass: password()}, nil
		}), nil
	case config.SASLScramSHA256:
		return scram.Sha256(func(context.Context) (scram.Auth, error) {
			return scram.Auth{User: user, Pass: password()}, nil
		}), nil
	case config.SASLScramSHA512:
		return scram.Sha512(func(context.Context) (scram.Auth, error) {
			return scram.Auth{User: user, Pass: password()}, nil
		}), nil
	case "":
		return nil, nil
	}
	return nil, fmt.Errorf("kafka.sasl.mechanism %q is not supported", s.Mechanism)
}

func readAll(path string) ([]byte, error) { return os.ReadFile(path) }

// loadSecret is a one-line secret file without its trailing newline.
func loadSecret(b [][]byte) (string, error) {
	s := strings.TrimRight(string(b[0]), "\r\n")
	if s == "" {
		return "", errors.New("the file is empty")
	}
	return s, nil
}
