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

type tlsMaterial struct {
	ca, cert, key             []byte
	caPath, certPath, keyPath string // relative to the configuration's directory, for reloading
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
	if t.CAFile != "" && m.ca == nil || t.CertFile != "" && m.cert == nil {
		return nil, errors.New("kafka.tls: the files are not resolved (config.Resolve)")
	}
	if m.ca != nil {
		tc.RootCAs = x509.NewCertPool()
		tc.RootCAs.AppendCertsFromPEM(m.ca)
	}
	if m.cert != nil {
		pair, err := tls.X509KeyPair(m.cert, m.key)
		if err != nil {
			return nil, err
		}
		tc.Certificates = []tls.Certificate{pair}
	}
	return tc, nil
}

// TLSPaths are the CA, certificate and key files as read (relative to the
// configuration file's directory), so that the
// client can load them again when they change; "" for a file not set.
func (c Cluster) TLSPaths() (ca, cert, key string) {
	return c.tls.caPath, c.tls.certPath, c.tls.keyPath
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
		m := &c.tls
		var err error
		if t.CAFile != "" {
			if m.ca, m.caPath, err = readFileAbs("kafka.tls.ca_file", dir, t.CAFile); err != nil {
				return Cluster{}, err
			}
			if !x509.NewCertPool().AppendCertsFromPEM(m.ca) {
				return Cluster{}, FieldError("", "kafka.tls.ca_file", t.CAFile, "no PEM certificate in the file")
			}
		}
		if t.CertFile != "" {
			if m.cert, m.certPath, err = readFileAbs("kafka.tls.cert_file", dir, t.CertFile); err != nil {
				return Cluster{}, err
			}
			if m.key, m.keyPath, err = readFileAbs("kafka.tls.key_file", dir, t.KeyFile); err != nil {
				return Cluster{}, err
			}
			if _, err := tls.X509KeyPair(m.cert, m.key); err != nil {
				return Cluster{}, FieldError("", "kafka.tls.cert_file", t.CertFile, "does not load with kafka.tls.key_file: "+err.Error())
			}
		}
	}
	m, err := sasl.Resolve(k.SASL, reader{dir: dir})
	if err != nil {
		return Cluster{}, saslError(err)
	}
	c.sasl = m
	return c, nil
}

// reader is the resolve step's sasl.Reader.
type reader struct{ dir string }

func (r reader) ReadFile(key, path string) ([]byte, string, error) {
	return readFileAbs("kafka.sasl."+key, r.dir, path)
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
func readFile(key, dir, path string) ([]byte, error) {
	b, err := os.ReadFile(resolvePath(dir, path))
	if err != nil {
		if pe, ok := errors.AsType[*fs.PathError](err); ok {
			err = pe.Err
		}
		return nil, FieldError("", key, path, fmt.Sprintf("cannot read: %v", err))
	}
	return b, nil
}
