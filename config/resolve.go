package config

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"

	"github.com/kafka-bench/kafka_bench_exporter/sasl"
	"github.com/kafka-bench/kafka_bench_exporter/secret"
)

// The resolve step: the one place besides Load that reads files and the
// environment. A validated configuration names files (TLS material, SASL
// secrets, Kerberos files, payload files) and environment variables
// (password_env); Resolve reads them, relative paths relative to the
// configuration file's directory, so that an unreadable one is an error
// now and not at the first connection. It gives the initial material only:
// the Kafka clients read the credential files again when they change
// (kclient), and a reload resolves anew.

// Resolved is a validated configuration with what its files and
// environment variables held when it was resolved. It is never changed
// once made: a reload makes another, and comparing two says what changed,
// files' contents included.
type Resolved struct {
	// Config is the configuration as validated, with the record_size of
	// each probe with a payload file set from the file (header + longest
	// entry); Config.Probes[i] is Probes[i].Probe.
	Config *Config
	// Kafka is the kafka block.
	Kafka Cluster
	// Probes are the probes of Config, in its order.
	Probes []ResolvedProbe
}

// WithBrokers is r with brokers as the kafka block's bootstrap list (the
// embedded cluster's, known once it started); r is not changed.
func (r *Resolved) WithBrokers(brokers []string) *Resolved {
	c := *r.Config
	out := *r
	out.Config = &c
	c.Kafka.Brokers = brokers
	out.Kafka.Kafka.Brokers = brokers
	return &out
}

// ResolvedProbe is one probe resolved: its payload entries and the target
// cluster of its replica block.
type ResolvedProbe struct {
	Probe Probe
	// Replica is the replica block's cluster; zero without one.
	Replica Cluster
	payload [][]byte
}

// Payload are the entries of the probe's payload file (kind file); nil for
// another kind.
func (p ResolvedProbe) Payload() [][]byte { return slices.Clip(p.payload) }

// Cluster is one kafka section resolved: its settings and the initial
// contents of the files and variables they name. The material is reachable
// only through its methods. A Cluster made of settings alone (no Resolve)
// serves a section with neither TLS files nor SASL.
type Cluster struct {
	Kafka Kafka
	tls   tlsMaterial
	sasl  sasl.Material
}

// tlsMaterial is the CA certificates and the client certificate as read,
// from PEM files or Java stores (keystore.go); a zero tlsFiles for one not
// set.
type tlsMaterial struct {
	ca, cert tlsFiles
}

// Format prints the settings alone: the material (keys, secrets) never
// shows, whatever the verb (%v, %+v, %#v, %s).
func (c Cluster) Format(f fmt.State, verb rune) {
	_, _ = fmt.Fprintf(f, fmt.FormatString(f, verb), c.Kafka)
}

// LogValue logs the settings alone.
func (c Cluster) LogValue() slog.Value { return slog.AnyValue(c.Kafka) }

// SASL is the resolved material of kafka.sasl's mechanism; nil without one
// or when the section was not resolved.
func (c Cluster) SASL() sasl.Material { return c.sasl }

// TLSConfig is the crypto/tls configuration of the section's clients from
// the resolved files; nil when TLS is off.
func (c Cluster) TLSConfig() (*tls.Config, error) {
	t := c.Kafka.TLS
	if !t.Enabled {
		return nil, nil
	}
	tc := &tls.Config{
		MinVersion:         tls.VersionTLS12,
		ServerName:         t.ServerName,
		InsecureSkipVerify: t.InsecureSkipVerify,
	}
	m := c.tls
	if (t.CAFile != "" || t.TruststoreFile != "") && m.ca.contents == nil || (t.CertFile != "" || t.KeystoreFile != "") && m.cert.contents == nil {
		return nil, errors.New("kafka.tls: the files are not resolved (config.Resolve)")
	}
	if m.ca.contents != nil {
		pool, err := m.ca.pool(m.ca.contents)
		if err != nil {
			return nil, err
		}
		tc.RootCAs = pool
	}
	if m.cert.contents != nil {
		pair, err := m.cert.pair(m.cert.contents)
		if err != nil {
			return nil, err
		}
		tc.Certificates = []tls.Certificate{*pair}
	}
	return tc, nil
}

// TLSCA are the files of the CA certificates (a PEM file, or a truststore
// and its password file) as read, absolute, and the function that makes
// the pool of their contents (in the order of paths), so that the client
// can load them again when they change; nil paths without a CA file.
func (c Cluster) TLSCA() (paths []string, load func([][]byte) (*x509.CertPool, error)) {
	f := c.tls.ca
	return slices.Clone(f.paths), f.pool
}

// TLSClientCert is TLSCA for the client certificate: its certificate and
// key files, or its keystore and password files.
func (c Cluster) TLSClientCert() (paths []string, load func([][]byte) (*tls.Certificate, error)) {
	f := c.tls.cert
	return slices.Clone(f.paths), f.pair
}

// ResolveFile is Resolve for the configuration loaded from file: relative
// paths are relative to its directory, and errors name it.
func ResolveFile(cfg *Config, file string) (*Resolved, error) {
	if file == "" {
		return Resolve(cfg, "")
	}
	r, err := Resolve(cfg, filepath.Dir(file))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return r, nil
}

// Resolve reads what the validated cfg names; relative paths are relative
// to dir ("": the working directory). cfg is not changed.
func Resolve(cfg *Config, dir string) (*Resolved, error) {
	c := *cfg
	c.Probes = slices.Clone(cfg.Probes)
	r := &Resolved{Config: &c}
	for i := range c.Probes {
		p, err := ResolveProbe(c.Probes[i], dir)
		if err != nil {
			return nil, err
		}
		c.Probes[i] = p.Probe
		r.Probes = append(r.Probes, p)
	}
	k, err := ResolveKafka(c.Kafka, dir)
	if err != nil {
		return nil, err
	}
	r.Kafka = k
	return r, nil
}

// ResolveProbe reads a validated probe's payload file and its replica
// block's files; relative paths are relative to dir.
func ResolveProbe(p Probe, dir string) (ResolvedProbe, error) {
	s := p.scope()
	rp := ResolvedProbe{Probe: p}
	if p.Payload.Kind == PayloadFile {
		entries, err := readPayload(p.Payload, dir)
		if err != nil {
			return ResolvedProbe{}, fmt.Errorf("%s: %w", s, err)
		}
		maxRecord := 0
		for _, e := range entries {
			maxRecord = max(maxRecord, HeaderSize+len(e))
		}
		switch {
		case len(entries) == 0:
			return ResolvedProbe{}, FieldError(s, "payload.file", p.Payload.File, fmt.Sprintf("holds no entries (split at payload.delimiter %q)", p.Payload.Delimiter))
		case maxRecord > maxRecordSize:
			return ResolvedProbe{}, FieldError(s, "payload.file", p.Payload.File, fmt.Sprintf("has an entry of %d bytes: a record may be at most %d", maxRecord-HeaderSize, maxRecordSize))
		}
		// The checks that depend on record_size hold for the file's.
		rp.Probe.RecordSize = maxRecord
		if err := rp.Probe.Validate(); err != nil {
			return ResolvedProbe{}, err
		}
		rp.payload = entries
	}
	if p.Producer.Transactional() {
		host, err := os.Hostname()
		if err != nil {
			return ResolvedProbe{}, FieldError(s, "producer.transactional.id", p.Producer.TransactionalID, "needs the host name for its suffix: "+err.Error())
		}
		rp.Probe.Producer.TransactionalID = TransactionalID(p.Producer.TransactionalID, p.Name, host)
	}
	if p.Replica != nil {
		c, err := ResolveKafka(p.Replica.Kafka, dir)
		if err != nil {
			return ResolvedProbe{}, replicaError(s, err)
		}
		rp.Replica = c
	}
	return rp, nil
}

// TransactionalID is the transactional.id a probe's producer uses: the
// configured one with the probe's name and the host's, so that two probes
// or two exporters with the same configuration never fence each other,
// while a restarted exporter fences (and so ends at once) the transaction
// its previous process left open.
func TransactionalID(id, probe, host string) string { return id + "-" + probe + "-" + host }

// readPayload reads the payload file and splits it at every Delimiter
// (taken literally, unlike Java's regex); empty entries are dropped.
func readPayload(p Payload, dir string) ([][]byte, error) {
	b, err := readFile("payload.file", dir, p.File)
	if err != nil {
		return nil, err
	}
	var out [][]byte
	for e := range bytes.SplitSeq(b, []byte(p.Delimiter)) {
		if len(e) > 0 {
			out = append(out, e)
		}
	}
	return out, nil
}

// ResolveKafka reads the files and the environment variable a validated
// kafka section names; relative paths are relative to dir.
func ResolveKafka(k Kafka, dir string) (Cluster, error) {
	c := Cluster{Kafka: k}
	if t := k.TLS; t.Enabled {
		var err error
		if c.tls, err = resolveTLS(t, dir); err != nil {
			return Cluster{}, err
		}
	}
	m, err := sasl.Resolve(k.SASL, reader{prefix: "kafka.sasl.", dir: dir})
	if err != nil {
		return Cluster{}, saslError(err)
	}
	c.sasl = m
	return c, nil
}

// resolveTLS reads the CA and client certificate files or stores of a
// validated kafka.tls and checks that they load.
func resolveTLS(t TLS, dir string) (tlsMaterial, error) {
	const p = "kafka.tls."
	var m tlsMaterial
	read := func(f *tlsFiles, key, path string) error {
		b, abs, err := readFileAbs(p+key, dir, path)
		f.paths, f.contents = append(f.paths, abs), append(f.contents, b)
		return err
	}
	switch {
	case t.CAFile != "":
		if err := read(&m.ca, "ca_file", t.CAFile); err != nil {
			return m, err
		}
		if _, err := m.ca.pool(m.ca.contents); err != nil {
			return m, FieldError("", p+"ca_file", t.CAFile, err.Error())
		}
	case t.TruststoreFile != "":
		m.ca = tlsFiles{store: storeType(t.TruststoreType), key: p + "truststore"}
		if err := read(&m.ca, "truststore_file", t.TruststoreFile); err != nil {
			return m, err
		}
		var err error
		if m.ca.password, err = resolveTLSPassword(t.truststorePassword(), dir, &m.ca); err != nil {
			return m, err
		}
		if _, err := m.ca.pool(m.ca.contents); err != nil {
			return m, FieldError("", p+"truststore_file", t.TruststoreFile, err.Error())
		}
	}
	switch {
	case t.CertFile != "":
		if err := read(&m.cert, "cert_file", t.CertFile); err != nil {
			return m, err
		}
		if err := read(&m.cert, "key_file", t.KeyFile); err != nil {
			return m, err
		}
		if _, err := tls.X509KeyPair(m.cert.contents[0], m.cert.contents[1]); err != nil {
			return m, FieldError("", p+"cert_file", t.CertFile, "does not load with kafka.tls.key_file: "+err.Error())
		}
	case t.KeystoreFile != "":
		m.cert = tlsFiles{store: storeType(t.KeystoreType), key: p + "keystore", alias: t.KeystoreAlias}
		if err := read(&m.cert, "keystore_file", t.KeystoreFile); err != nil {
			return m, err
		}
		var err error
		if m.cert.password, err = resolveTLSPassword(t.keystorePassword(), dir, &m.cert); err != nil {
			return m, err
		}
		if m.cert.keyPassword, err = resolveTLSPassword(t.keyPassword(), dir, &m.cert); err != nil {
			return m, err
		}
		if _, err := m.cert.pair(m.cert.contents); err != nil {
			return m, FieldError("", p+"keystore_file", t.KeystoreFile, err.Error())
		}
	}
	return m, nil
}

// resolveTLSPassword reads a kafka.tls password from its source; paths are
// the material's so far, to which a password file is added.
func resolveTLSPassword(s secret.Source, dir string, f *tlsFiles) (tlsPassword, error) {
	r, err := s.Resolve(reader{prefix: "kafka.tls.", dir: dir})
	if err != nil {
		return tlsPassword{}, tlsSecretError(err)
	}
	p := tlsPassword{Resolved: r}
	if r.Path != "" {
		f.paths, f.contents = append(f.paths, r.Path), append(f.contents, []byte(r.Value.Reveal()))
		p.file, p.key = len(f.paths)-1, "kafka.tls."+s.Key+"_file"
	}
	return p, nil
}

// reader is the resolve step's secret.Reader (and sasl.Reader) of a block
// (prefix, as kafka.sasl.).
type reader struct{ prefix, dir string }

func (r reader) ReadFile(key, path string) ([]byte, string, error) {
	return readFileAbs(r.prefix+key, r.dir, path)
}

func (reader) LookupEnv(name string) (string, bool) { return os.LookupEnv(name) }

// resolvePath makes a relative path relative to dir.
func resolvePath(dir, path string) string {
	if dir != "" && !filepath.IsAbs(path) {
		return filepath.Join(dir, path)
	}
	return path
}

// readFileAbs is readFile and the path it read, relative to dir.
func readFileAbs(key, dir, path string) ([]byte, string, error) {
	b, err := readFile(key, dir, path)
	return b, resolvePath(dir, path), err
}

// readFile reads a file named by key; relative paths are relative to dir.
// The error names the key and the path, never the content.
func readFile(key, dir, path string) ([]byte, error) { return ReadFile("", key, dir, path) }

// ReadFile is the resolve step's read of a file named by a key (in scope,
// as FieldError's): relative paths are relative to dir, and the error names
// the key and the path, never the content.
func ReadFile(scope, key, dir, path string) ([]byte, error) {
	b, err := os.ReadFile(resolvePath(dir, path))
	if err != nil {
		if pe, ok := errors.AsType[*fs.PathError](err); ok {
			err = pe.Err
		}
		return nil, FieldError(scope, key, path, fmt.Sprintf("cannot read: %v", err))
	}
	return b, nil
}
