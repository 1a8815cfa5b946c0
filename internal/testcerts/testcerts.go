// Package testcerts generates a throw-away certificate authority, a server
// certificate for 127.0.0.1 and localhost, and a client certificate, as PEM
// files, for tests of TLS to Kafka and of the exporter's own HTTPS. Nothing
// is committed: every test run makes new ones.
package testcerts

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jcmturner/gokrb5/v8/iana/etypeID"
	"github.com/jcmturner/gokrb5/v8/keytab"
	keystore "github.com/pavlo-v-chernykh/keystore-go/v4"
	"github.com/twmb/franz-go/pkg/kfake"
	"software.sslmate.com/src/go-pkcs12"
)

// Set is a CA and the certificates it signed, written to Dir.
type Set struct {
	Dir string
	// CAFile is the CA certificate (PEM).
	CAFile string
	// ServerCertFile and ServerKeyFile are the server certificate (SANs
	// 127.0.0.1, ::1 and localhost) and its PKCS#8 key; ServerPEMFile has
	// both, key first, as Kafka's PEM keystore wants them.
	ServerCertFile, ServerKeyFile, ServerPEMFile string
	// ClientCertFile and ClientKeyFile are a client certificate (CN
	// "client") for mTLS.
	ClientCertFile, ClientKeyFile string

	CAPool *x509.CertPool
	Server tls.Certificate
	Client tls.Certificate
}

// Generate writes a new Set into dir, which must exist.
func Generate(dir string) (*Set, error) {
	now := time.Now()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "kafka_bench_exporter test CA"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}
	s := &Set{
		Dir:            dir,
		CAFile:         filepath.Join(dir, "ca.pem"),
		ServerCertFile: filepath.Join(dir, "server.pem"),
		ServerKeyFile:  filepath.Join(dir, "server-key.pem"),
		ServerPEMFile:  filepath.Join(dir, "server-keystore.pem"),
		ClientCertFile: filepath.Join(dir, "client.pem"),
		ClientKeyFile:  filepath.Join(dir, "client-key.pem"),
		CAPool:         x509.NewCertPool(),
	}
	s.CAPool.AddCert(ca)
	caPEM := pemBlock("CERTIFICATE", caDER)
	if err := os.WriteFile(s.CAFile, caPEM, 0o644); err != nil {
		return nil, err
	}
	leaf := func(serial int64, cn string, usage x509.ExtKeyUsage, certFile, keyFile string) (tls.Certificate, []byte, []byte, error) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return tls.Certificate{}, nil, nil, err
		}
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(serial),
			Subject:      pkix.Name{CommonName: cn},
			NotBefore:    now.Add(-time.Hour),
			NotAfter:     now.Add(24 * time.Hour),
			KeyUsage:     x509.KeyUsageDigitalSignature,
			ExtKeyUsage:  []x509.ExtKeyUsage{usage},
		}
		if usage == x509.ExtKeyUsageServerAuth {
			tmpl.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}
			tmpl.DNSNames = []string{"localhost"}
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			return tls.Certificate{}, nil, nil, err
		}
		keyDER, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			return tls.Certificate{}, nil, nil, err
		}
		// The chain includes the CA, as brokers and servers usually send it.
		certPEM := append(pemBlock("CERTIFICATE", der), caPEM...)
		keyPEM := pemBlock("PRIVATE KEY", keyDER)
		if err := os.WriteFile(certFile, certPEM, 0o644); err != nil {
			return tls.Certificate{}, nil, nil, err
		}
		if err := os.WriteFile(keyFile, keyPEM, 0o600); err != nil {
			return tls.Certificate{}, nil, nil, err
		}
		pair, err := tls.X509KeyPair(certPEM, keyPEM)
		return pair, certPEM, keyPEM, err
	}
	var certPEM, keyPEM []byte
	if s.Server, certPEM, keyPEM, err = leaf(2, "localhost", x509.ExtKeyUsageServerAuth, s.ServerCertFile, s.ServerKeyFile); err != nil {
		return nil, fmt.Errorf("server certificate: %w", err)
	}
	if err := os.WriteFile(s.ServerPEMFile, append(keyPEM, certPEM...), 0o600); err != nil {
		return nil, err
	}
	if s.Client, _, _, err = leaf(3, "client", x509.ExtKeyUsageClientAuth, s.ClientCertFile, s.ClientKeyFile); err != nil {
		return nil, fmt.Errorf("client certificate: %w", err)
	}
	return s, nil
}

// ServerTLS is a server configuration with the server certificate; with
// clientAuth, client certificates signed by the CA are required.
func (s *Set) ServerTLS(clientAuth bool) *tls.Config {
	c := &tls.Config{Certificates: []tls.Certificate{s.Server}, MinVersion: tls.VersionTLS12}
	if clientAuth {
		c.ClientAuth = tls.RequireAndVerifyClientCert
		c.ClientCAs = s.CAPool
	}
	return c
}

// New is a new Set in a temporary directory of t (Set.Dir).
func New(t testing.TB) *Set {
	t.Helper()
	s, err := Generate(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// MTLSServer is an HTTPS server with the server certificate that requires
// a client certificate of the CA, closed when t ends; the handshakes it
// refuses are not logged.
func (s *Set) MTLSServer(t testing.TB, h http.Handler) *httptest.Server {
	srv := httptest.NewUnstartedServer(h)
	srv.TLS = s.ServerTLS(true)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

func pemBlock(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}

// KfakeTLS is a one-broker kfake cluster serving TLS with the server
// certificate of a new Set (in a temporary directory of t), closed when t
// ends, and that Set.
func KfakeTLS(t testing.TB) (*Set, *kfake.Cluster) {
	t.Helper()
	certs := New(t)
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.TLS(certs.ServerTLS(false)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return certs, c
}

// Keytab is a throw-away Kerberos keytab holding one AES-256 key of
// principal@realm derived from password, for the GSSAPI tests that need a
// keytab file but no KDC.
func Keytab(t testing.TB, principal, realm, password string) []byte {
	t.Helper()
	kt := keytab.New()
	if err := kt.AddEntry(principal, realm, password, time.Now(), 1, etypeID.AES256_CTS_HMAC_SHA1_96); err != nil {
		t.Fatal(err)
	}
	b, err := kt.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The Set as Java stores, as keytool writes them for Kafka's
// ssl.truststore.* and ssl.keystore.* (PKCS12 by go-pkcs12, JKS by
// keystore-go): made from the certificates of the Set, nothing committed.

// CA is the CA certificate of the Set.
func (s *Set) CA() *x509.Certificate {
	ca, err := x509.ParseCertificate(s.Client.Certificate[len(s.Client.Certificate)-1])
	if err != nil {
		panic(err) // made by Generate
	}
	return ca
}

// PKCS12Truststore is a PKCS12 truststore holding the CA as a trusted
// certificate.
func (s *Set) PKCS12Truststore(password string) ([]byte, error) {
	return pkcs12.Modern.EncodeTrustStore([]*x509.Certificate{s.CA()}, password)
}

// PKCS12Keystore is a PKCS12 keystore holding the client certificate, its
// chain and its key, with one password for the store and the key.
func (s *Set) PKCS12Keystore(password string) ([]byte, error) {
	leaf, err := x509.ParseCertificate(s.Client.Certificate[0])
	if err != nil {
		return nil, err
	}
	return pkcs12.Modern.Encode(s.Client.PrivateKey, leaf, []*x509.Certificate{s.CA()}, password)
}

// JKSTruststore is a JKS truststore holding the CA as trusted certificate
// entry "ca".
func (s *Set) JKSTruststore(password string) ([]byte, error) {
	ks := keystore.New()
	if err := ks.SetTrustedCertificateEntry("ca", keystore.TrustedCertificateEntry{
		CreationTime: time.Now(),
		Certificate:  keystore.Certificate{Type: "X509", Content: s.CA().Raw},
	}); err != nil {
		return nil, err
	}
	return storeJKS(ks, password)
}

// JKSKeystore is a JKS keystore holding the client certificate chain and
// its key as private key entries named aliases ("client" if none), the key
// encrypted with keyPassword.
func (s *Set) JKSKeystore(password, keyPassword string, aliases ...string) ([]byte, error) {
	if len(aliases) == 0 {
		aliases = []string{"client"}
	}
	der, err := x509.MarshalPKCS8PrivateKey(s.Client.PrivateKey)
	if err != nil {
		return nil, err
	}
	entry := keystore.PrivateKeyEntry{CreationTime: time.Now(), PrivateKey: der}
	for _, c := range s.Client.Certificate {
		entry.CertificateChain = append(entry.CertificateChain, keystore.Certificate{Type: "X509", Content: c})
	}
	ks := keystore.New()
	for _, a := range aliases {
		if err := ks.SetPrivateKeyEntry(a, entry, []byte(keyPassword)); err != nil {
			return nil, err
		}
	}
	return storeJKS(ks, password)
}

func storeJKS(ks keystore.KeyStore, password string) ([]byte, error) {
	var b bytes.Buffer
	if err := ks.Store(&b, []byte(password)); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
