package config

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kafka-bench/kafka_bench_exporter/redact"
)

// TLS configures TLS to the brokers (kafka.tls).
type TLS struct {
	Enabled bool `yaml:"enabled"`
	// CAFile verifies the brokers; empty uses the system roots.
	CAFile string `yaml:"ca_file"`
	// CertFile and KeyFile are the client certificate for mTLS.
	CertFile           string `yaml:"cert_file"`
	KeyFile            string `yaml:"key_file"`
	ServerName         string `yaml:"server_name"`
	InsecureSkipVerify bool   `yaml:"insecure_skip_verify"`

	// loaded holds the files' contents, read by Validate: clients use
	// exactly what was validated, and a rotated file makes the config
	// differ on reload (reflect.DeepEqual follows the pointer). A pointer,
	// so that printing a config with %v shows an address, never a key.
	loaded *tlsFiles
}

type tlsFiles struct {
	ca, cert, key             []byte
	caPath, certPath, keyPath string // made absolute, for reloading
}

// SASL mechanisms.
const (
	SASLPlain       = "PLAIN"
	SASLScramSHA256 = "SCRAM-SHA-256"
	SASLScramSHA512 = "SCRAM-SHA-512"
)

// SASL configures SASL authentication (kafka.sasl); an empty mechanism
// turns it off. The password comes from exactly one of Password,
// PasswordFile and PasswordEnv.
type SASL struct {
	Mechanism string `yaml:"mechanism"`
	// OAuth configures mechanism OAUTHBEARER.
	OAuth OAuth `yaml:"oauth"`
	// Kerberos configures mechanism GSSAPI.
	Kerberos Kerberos `yaml:"kerberos"`
	// AWS configures mechanism AWS_MSK_IAM.
	AWS          AWS    `yaml:"aws"`
	Username     string `yaml:"username"`
	Password     Secret `yaml:"password"`
	PasswordFile string `yaml:"password_file"`
	PasswordEnv  string `yaml:"password_env"`

	// resolved is the password from its source, read by Validate; a
	// pointer for the reasons of TLS.loaded.
	resolved *Secret
	// passwordPath is password_file made absolute, for reloading.
	passwordPath string
}

// Secret is a configuration value that is never shown (redact.Secret): it
// marshals (for --config.check) and prints as <secret>, and logs as
// <secret>.
type Secret = redact.Secret

// Validate checks kafka.tls and kafka.sasl and reads the files and the
// environment variable they name, so an unreadable file is an error now and
// not at the first connection. Relative paths are relative to the
// directory of the configuration file.
func (k *Kafka) Validate() error {
	for _, b := range k.Brokers {
		if b == "" {
			return FieldError("", "kafka.brokers", b, "empty broker address")
		}
	}
	if err := k.TLS.validate(k.baseDir); err != nil {
		return err
	}
	return k.SASL.validate(k.baseDir)
}

// checkEmbedded runs once the brokers are final (file and --kafka.brokers):
// with none the exporter starts its embedded cluster, which has neither TLS
// nor SASL, so security settings without brokers are a mistake to report,
// not a reason to probe the embedded cluster in plain text.
func (k *Kafka) checkEmbedded() error {
	const problem = "needs kafka.brokers (or --kafka.brokers): without brokers the exporter starts its embedded cluster, which has no "
	switch {
	case len(k.Brokers) > 0:
		return nil
	case k.TLS.Enabled:
		return FieldError("", "kafka.tls.enabled", true, problem+"TLS")
	case k.SASL.Mechanism != "":
		return FieldError("", "kafka.sasl.mechanism", k.SASL.Mechanism, problem+"SASL")
	}
	return nil
}

func (t *TLS) validate(dir string) error {
	t.loaded = nil
	if !t.Enabled {
		for _, f := range []struct {
			key string
			set bool
			val any
		}{
			{"ca_file", t.CAFile != "", t.CAFile},
			{"cert_file", t.CertFile != "", t.CertFile},
			{"key_file", t.KeyFile != "", t.KeyFile},
			{"server_name", t.ServerName != "", t.ServerName},
			{"insecure_skip_verify", t.InsecureSkipVerify, t.InsecureSkipVerify},
		} {
			if f.set {
				return FieldError("", "kafka.tls."+f.key, f.val, "kafka.tls.enabled is false: set it to true to use TLS")
			}
		}
		return nil
	}
	switch {
	case t.CertFile != "" && t.KeyFile == "":
		return FieldError("", "kafka.tls.cert_file", t.CertFile, "needs kafka.tls.key_file, the client certificate's key")
	case t.KeyFile != "" && t.CertFile == "":
		return FieldError("", "kafka.tls.key_file", t.KeyFile, "needs kafka.tls.cert_file, the client certificate")
	}
	var f tlsFiles
	var err error
	if t.CAFile != "" {
		f.caPath = resolvePath(dir, t.CAFile)
		if f.ca, err = readFile("kafka.tls.ca_file", dir, t.CAFile); err != nil {
			return err
		}
		if !x509.NewCertPool().AppendCertsFromPEM(f.ca) {
			return FieldError("", "kafka.tls.ca_file", t.CAFile, "no PEM certificate in the file")
		}
	}
	if t.CertFile != "" {
		f.certPath, f.keyPath = resolvePath(dir, t.CertFile), resolvePath(dir, t.KeyFile)
		if f.cert, err = readFile("kafka.tls.cert_file", dir, t.CertFile); err != nil {
			return err
		}
		if f.key, err = readFile("kafka.tls.key_file", dir, t.KeyFile); err != nil {
			return err
		}
		if _, err := tls.X509KeyPair(f.cert, f.key); err != nil {
			return FieldError("", "kafka.tls.cert_file", t.CertFile, "does not load with kafka.tls.key_file: "+err.Error())
		}
	}
	t.loaded = &f
	return nil
}

// ClientConfig is the crypto/tls configuration of the Kafka clients; nil
// when TLS is off.
func (t TLS) ClientConfig() (*tls.Config, error) {
	if !t.Enabled {
		return nil, nil
	}
	if t.loaded == nil {
		if err := t.validate(""); err != nil { // not validated (built in code)
			return nil, err
		}
	}
	c := &tls.Config{
		MinVersion:         tls.VersionTLS12,
		ServerName:         t.ServerName,
		InsecureSkipVerify: t.InsecureSkipVerify,
	}
	if f := t.loaded; f.ca != nil {
		c.RootCAs = x509.NewCertPool()
		c.RootCAs.AppendCertsFromPEM(f.ca)
	}
	if f := t.loaded; f.cert != nil {
		pair, err := tls.X509KeyPair(f.cert, f.key)
		if err != nil {
			return nil, err
		}
		c.Certificates = []tls.Certificate{pair}
	}
	return c, nil
}

// Paths are the CA, certificate and key files made absolute, so that the
// client can load them again when they change; "" for a file not set.
func (t TLS) Paths() (ca, cert, key string) {
	if !t.Enabled {
		return "", "", ""
	}
	if t.loaded == nil {
		if err := t.validate(""); err != nil {
			return "", "", ""
		}
	}
	return t.loaded.caPath, t.loaded.certPath, t.loaded.keyPath
}

var saslMechanisms = []string{SASLPlain, SASLScramSHA256, SASLScramSHA512, SASLOAuthBearer, SASLGSSAPI, SASLAWSMSKIAM}

// SASLMechanisms are the values kafka.sasl.mechanism accepts (besides
// empty, no SASL), for the deployment files that offer the same choice.
func SASLMechanisms() []string { return slices.Clone(saslMechanisms) }

const mechanismList = "PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER, GSSAPI or AWS_MSK_IAM"

func (s *SASL) validate(dir string) error {
	s.resolved, s.passwordPath = nil, ""
	if s.Mechanism == "" {
		switch {
		case s.Username != "":
			return FieldError("", "kafka.sasl.username", s.Username, "kafka.sasl.mechanism is not set ("+mechanismList+")")
		case s.Password != "" || s.PasswordFile != "" || s.PasswordEnv != "":
			return FieldError("", "kafka.sasl.mechanism", "", "must be set when a password is (PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512)")
		case s.OAuth.set():
			return FieldError("", "kafka.sasl.mechanism", "", "must be OAUTHBEARER when kafka.sasl.oauth is set")
		case s.Kerberos.set():
			return FieldError("", "kafka.sasl.mechanism", "", "must be GSSAPI when kafka.sasl.kerberos is set")
		case s.AWS.set():
			return FieldError("", "kafka.sasl.mechanism", "", "must be AWS_MSK_IAM when kafka.sasl.aws is set")
		}
		return nil
	}
	known := false
	for _, m := range saslMechanisms {
		known = known || s.Mechanism == m
	}
	if !known {
		return FieldError("", "kafka.sasl.mechanism", s.Mechanism, "must be one of "+strings.Join(saslMechanisms, ", "))
	}
	if s.Mechanism == SASLOAuthBearer {
		switch {
		case s.Username != "":
			return FieldError("", "kafka.sasl.username", s.Username, "not used with mechanism OAUTHBEARER: the token names the principal")
		case s.Password != "" || s.PasswordFile != "" || s.PasswordEnv != "":
			key, val := s.passwordSource()
			return FieldError("", "kafka.sasl."+key, val, "not used with mechanism OAUTHBEARER: set kafka.sasl.oauth")
		}
		return s.OAuth.validate(dir)
	}
	if s.OAuth.set() {
		return FieldError("", "kafka.sasl.oauth", "", "only with mechanism OAUTHBEARER, not "+s.Mechanism)
	}
	if s.Mechanism == SASLAWSMSKIAM {
		switch {
		case s.Username != "":
			return FieldError("", "kafka.sasl.username", s.Username, "not used with mechanism AWS_MSK_IAM: the AWS credentials name the principal")
		case s.Password != "" || s.PasswordFile != "" || s.PasswordEnv != "":
			key, val := s.passwordSource()
			return FieldError("", "kafka.sasl."+key, val, "not used with mechanism AWS_MSK_IAM: credentials come from the AWS chain")
		case s.Kerberos.set():
			return FieldError("", "kafka.sasl.kerberos", "", "only with mechanism GSSAPI, not "+s.Mechanism)
		}
		s.resolved = new(Secret)
		return s.AWS.validate()
	}
	if s.AWS.set() {
		return FieldError("", "kafka.sasl.aws", "", "only with mechanism AWS_MSK_IAM, not "+s.Mechanism)
	}
	if s.Mechanism == SASLGSSAPI {
		if s.Username == "" {
			return FieldError("", "kafka.sasl.username", s.Username, "must be set with mechanism GSSAPI: the Kerberos principal, without the realm")
		}
		hasPassword := s.Password != "" || s.PasswordFile != "" || s.PasswordEnv != ""
		if err := s.Kerberos.validate(dir, hasPassword); err != nil {
			return err
		}
		if !hasPassword {
			s.resolved = new(Secret) // the keytab holds the key
			return nil
		}
	} else if s.Kerberos.set() {
		return FieldError("", "kafka.sasl.kerberos", "", "only with mechanism GSSAPI, not "+s.Mechanism)
	}
	if s.Username == "" {
		return FieldError("", "kafka.sasl.username", s.Username, "must be set with mechanism "+s.Mechanism)
	}
	var sources []string
	if s.Password != "" {
		sources = append(sources, "password")
	}
	if s.PasswordFile != "" {
		sources = append(sources, "password_file")
	}
	if s.PasswordEnv != "" {
		sources = append(sources, "password_env")
	}
	switch {
	case len(sources) == 0:
		return FieldError("", "kafka.sasl.password", s.Password, "set exactly one of password, password_file, password_env")
	case len(sources) > 1:
		return FieldError("", "kafka.sasl."+sources[1], s.sourceValue(sources[1]), "set exactly one of password, password_file, password_env (also set: "+sources[0]+")")
	}
	var pw Secret
	switch {
	case s.Password != "":
		pw = s.Password
	case s.PasswordFile != "":
		s.passwordPath = resolvePath(dir, s.PasswordFile)
		b, err := readFile("kafka.sasl.password_file", dir, s.PasswordFile)
		if err != nil {
			return err
		}
		// Files written by editors and `echo` end with a newline that is
		// not part of the password.
		if pw = Secret(strings.TrimRight(string(b), "\r\n")); pw == "" {
			return FieldError("", "kafka.sasl.password_file", s.PasswordFile, "the file is empty")
		}
	default:
		v, ok := os.LookupEnv(s.PasswordEnv)
		if !ok || v == "" {
			return FieldError("", "kafka.sasl.password_env", s.PasswordEnv, "environment variable is not set or empty")
		}
		pw = Secret(v)
	}
	s.resolved = &pw
	return nil
}

// passwordSource is the first password key set and its value.
func (s *SASL) passwordSource() (string, any) {
	switch {
	case s.Password != "":
		return "password", s.Password
	case s.PasswordFile != "":
		return "password_file", s.PasswordFile
	}
	return "password_env", s.PasswordEnv
}

func (s *SASL) sourceValue(key string) any {
	if key == "password_file" {
		return s.PasswordFile
	}
	return s.PasswordEnv
}

// Secret is the resolved password (from password, password_file or
// password_env).
func (s SASL) Secret() Secret {
	if s.resolved == nil {
		_ = s.validate("") // not validated (built in code): resolve now
	}
	if s.resolved == nil {
		return ""
	}
	return *s.resolved
}

// PasswordPath is password_file made absolute, so that the client can read
// it again when it changes; "" when the password is not from a file.
func (s SASL) PasswordPath() string {
	if s.resolved == nil {
		_ = s.validate("")
	}
	return s.passwordPath
}

// resolvePath makes a relative path relative to dir.
func resolvePath(dir, path string) string {
	if dir != "" && !filepath.IsAbs(path) {
		return filepath.Join(dir, path)
	}
	return path
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
