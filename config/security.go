package config

import (
	"errors"
	"strings"

	"github.com/kafka-bench/kafka_bench_exporter/redact"
	"github.com/kafka-bench/kafka_bench_exporter/sasl"
	"github.com/kafka-bench/kafka_bench_exporter/secret"
)

// TLS configures TLS to the brokers (kafka.tls). The brokers are verified
// by a PEM CA file or a Java truststore, the client certificate (mTLS) is
// a PEM certificate and key or a Java keystore: PKCS12 or JKS, as Kafka's
// ssl.truststore.* and ssl.keystore.* name them (keystore.go).
type TLS struct {
	Enabled bool `yaml:"enabled" doc:"TLS to the brokers; needs {kafka.brokers}; see Security"`
	// CAFile verifies the brokers; empty uses the system roots.
	CAFile string `yaml:"ca_file" default:"(system roots)" values:"or {kafka.tls.truststore_file}, not both" doc:"PEM CA certificate(s) that verify the brokers; a relative path is relative to the configuration file"`
	// CertFile and KeyFile are the client certificate for mTLS.
	CertFile string `yaml:"cert_file" values:"set with {kafka.tls.key_file}: both or neither; or {kafka.tls.keystore_file}" doc:"PEM client certificate (mTLS)"`
	KeyFile  string `yaml:"key_file" values:"set with {kafka.tls.cert_file}: both or neither; or {kafka.tls.keystore_file}" doc:"PEM client key (mTLS)"`

	// A Java truststore in place of CAFile: its trusted certificate
	// entries verify the brokers.
	TruststoreFile         string `yaml:"truststore_file" default:"(none)" values:"or {kafka.tls.ca_file}, not both" doc:"a Java truststore (Kafka's {ssl.truststore.location}) whose trusted certificates verify the brokers; re-read when it changes"`
	TruststoreType         string `yaml:"truststore_type" default:"{PKCS12}" values:"{PKCS12} | {JKS}, with {kafka.tls.truststore_file}" doc:"the format of {kafka.tls.truststore_file}"`
	TruststorePassword     Secret `yaml:"truststore_password" values:"at most one of {truststore_password}, {truststore_password_file}, {truststore_password_env}" doc:"the truststore's password inline; never printed ({<secret>}); without one a JKS truststore's integrity is not checked, as in Kafka"`
	TruststorePasswordFile string `yaml:"truststore_password_file" values:"at most one of {truststore_password}, {truststore_password_file}, {truststore_password_env}" doc:"a file whose content is the truststore's password (trailing newline dropped)"`
	TruststorePasswordEnv  string `yaml:"truststore_password_env" values:"at most one of {truststore_password}, {truststore_password_file}, {truststore_password_env}" doc:"an environment variable that holds the truststore's password"`

	// A Java keystore in place of CertFile and KeyFile: its one private
	// key entry is the client certificate chain and key.
	KeystoreFile         string `yaml:"keystore_file" default:"(none)" values:"or {kafka.tls.cert_file} and {kafka.tls.key_file}, not both" doc:"a Java keystore (Kafka's {ssl.keystore.location}) with one private key entry: the client certificate chain and its key (mTLS); re-read when it changes"`
	KeystoreType         string `yaml:"keystore_type" default:"{PKCS12}" values:"{PKCS12} | {JKS}, with {kafka.tls.keystore_file}" doc:"the format of {kafka.tls.keystore_file}"`
	KeystorePassword     Secret `yaml:"keystore_password" values:"at most one of {keystore_password}, {keystore_password_file}, {keystore_password_env}; JKS needs one" doc:"the keystore's password inline; never printed ({<secret>})"`
	KeystorePasswordFile string `yaml:"keystore_password_file" values:"at most one of {keystore_password}, {keystore_password_file}, {keystore_password_env}" doc:"a file whose content is the keystore's password (trailing newline dropped)"`
	KeystorePasswordEnv  string `yaml:"keystore_password_env" values:"at most one of {keystore_password}, {keystore_password_file}, {keystore_password_env}" doc:"an environment variable that holds the keystore's password"`
	KeyPassword          Secret `yaml:"key_password" default:"(the keystore's password)" values:"at most one of {key_password}, {key_password_file}, {key_password_env}; with {kafka.tls.keystore_file}" doc:"the password of the key entry (Kafka's {ssl.key.password}), inline; never printed ({<secret>}); a PKCS12 keystore's key has the store's password"`
	KeyPasswordFile      string `yaml:"key_password_file" values:"at most one of {key_password}, {key_password_file}, {key_password_env}" doc:"a file whose content is the key entry's password (trailing newline dropped)"`
	KeyPasswordEnv       string `yaml:"key_password_env" values:"at most one of {key_password}, {key_password_file}, {key_password_env}" doc:"an environment variable that holds the key entry's password"`
	KeystoreAlias        string `yaml:"keystore_alias" default:"(the store's one private key entry)" values:"an alias of a private key entry; with {kafka.tls.keystore_file} of type {JKS}" doc:"the private key entry of a JKS keystore that holds several (Kafka has no such setting: its key manager would pick any of them); a PKCS12 keystore is read with one private key"`

	ServerName         string `yaml:"server_name" default:"(the broker's host)" doc:"name the broker certificates are checked against"`
	InsecureSkipVerify bool   `yaml:"insecure_skip_verify" doc:"do not verify broker certificates (tests only; logged as WARN)"`
}

// SASL configures SASL authentication (kafka.sasl): the settings of every
// mechanism, each of which lives in package sasl.
type SASL = sasl.Config

// Secret is a configuration value that is never shown (redact.Secret): it
// marshals (for --config.check) and prints as <secret>, and logs as
// <secret>.
type Secret = redact.Secret

// Validate checks kafka.tls and kafka.sasl without reading the files and
// the environment variable they name: Resolve reads them.
func (k *Kafka) Validate() error {
	for _, b := range k.Brokers {
		if b == "" {
			return FieldError("", "kafka.brokers", b, "empty broker address")
		}
	}
	if err := k.TLS.validate(); err != nil {
		return err
	}
	return saslError(k.SASL.Validate())
}

// saslError shows a kafka.sasl problem in the shape of every configuration
// error.
func saslError(err error) error {
	if e, ok := errors.AsType[*sasl.Error](err); ok {
		return FieldError("", strings.TrimSuffix("kafka.sasl."+e.Key, "."), e.Value, e.Problem)
	}
	return err
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

func (t *TLS) validate() error {
	if !t.Enabled {
		for _, f := range t.settings() {
			if f.set {
				return FieldError("", "kafka.tls."+f.key, f.val, "kafka.tls.enabled is false: set it to true to use TLS")
			}
		}
		return nil
	}
	const p = "kafka.tls."
	switch {
	case t.CAFile != "" && t.TruststoreFile != "":
		return FieldError("", p+"truststore_file", t.TruststoreFile, "set kafka.tls.ca_file or kafka.tls.truststore_file, not both")
	case t.KeystoreFile != "" && t.CertFile != "":
		return FieldError("", p+"keystore_file", t.KeystoreFile, "set kafka.tls.cert_file and key_file or kafka.tls.keystore_file, not both")
	case t.KeystoreFile != "" && t.KeyFile != "":
		return FieldError("", p+"keystore_file", t.KeystoreFile, "set kafka.tls.key_file and cert_file or kafka.tls.keystore_file, not both")
	case t.CertFile != "" && t.KeyFile == "":
		return FieldError("", p+"cert_file", t.CertFile, "needs kafka.tls.key_file, the client certificate's key")
	case t.KeyFile != "" && t.CertFile == "":
		return FieldError("", p+"key_file", t.KeyFile, "needs kafka.tls.cert_file, the client certificate")
	}
	for _, s := range []struct {
		store, file, typ string
		secrets          []secret.Source
	}{
		{"truststore", t.TruststoreFile, t.TruststoreType, []secret.Source{t.truststorePassword()}},
		{"keystore", t.KeystoreFile, t.KeystoreType, []secret.Source{t.keystorePassword(), t.keyPassword()}},
	} {
		if s.typ != "" && storeType(s.typ) == "" {
			return FieldError("", p+s.store+"_type", s.typ, "must be PKCS12 or JKS (convert another store with keytool -importkeystore -deststoretype PKCS12, or use PEM files)")
		}
		if s.file == "" && s.typ != "" {
			return FieldError("", p+s.store+"_type", s.typ, "needs kafka.tls."+s.store+"_file, the store it describes")
		}
		for _, sec := range s.secrets {
			if err := tlsSecretError(sec.Validate()); err != nil {
				return err
			}
			if key, val, ok := sec.Given(); ok && s.file == "" {
				return FieldError("", p+key, val, "needs kafka.tls."+s.store+"_file, the store it opens")
			}
		}
		if !s.secrets[0].Set() && s.store == "keystore" && s.file != "" && storeType(s.typ) == storeJKS {
			return FieldError("", p+"keystore_file", s.file, "a JKS keystore needs kafka.tls.keystore_password (or keystore_password_file, keystore_password_env), as in Kafka")
		}
	}
	switch {
	case t.KeystoreAlias != "" && t.KeystoreFile == "":
		return FieldError("", p+"keystore_alias", t.KeystoreAlias, "needs kafka.tls.keystore_file, the store it picks from")
	case t.KeystoreAlias != "" && storeType(t.KeystoreType) != storeJKS:
		return FieldError("", p+"keystore_alias", t.KeystoreAlias, "only for a JKS keystore (kafka.tls.keystore_type JKS): a PKCS12 keystore is read with one private key")
	}
	return nil
}

// tlsSecretError shows a problem with a kafka.tls password in the shape of
// every configuration error.
func tlsSecretError(err error) error {
	if e, ok := errors.AsType[*secret.Error](err); ok {
		return FieldError("", "kafka.tls."+e.Key, e.Value, e.Problem)
	}
	return err
}

// settings are the kafka.tls keys besides enabled, and whether each is set.
func (t *TLS) settings() []tlsSetting {
	return []tlsSetting{
		{"ca_file", t.CAFile != "", t.CAFile},
		{"cert_file", t.CertFile != "", t.CertFile},
		{"key_file", t.KeyFile != "", t.KeyFile},
		{"truststore_file", t.TruststoreFile != "", t.TruststoreFile},
		{"truststore_type", t.TruststoreType != "", t.TruststoreType},
		{"truststore_password", t.TruststorePassword != "", t.TruststorePassword},
		{"truststore_password_file", t.TruststorePasswordFile != "", t.TruststorePasswordFile},
		{"truststore_password_env", t.TruststorePasswordEnv != "", t.TruststorePasswordEnv},
		{"keystore_file", t.KeystoreFile != "", t.KeystoreFile},
		{"keystore_type", t.KeystoreType != "", t.KeystoreType},
		{"keystore_password", t.KeystorePassword != "", t.KeystorePassword},
		{"keystore_password_file", t.KeystorePasswordFile != "", t.KeystorePasswordFile},
		{"keystore_password_env", t.KeystorePasswordEnv != "", t.KeystorePasswordEnv},
		{"key_password", t.KeyPassword != "", t.KeyPassword},
		{"key_password_file", t.KeyPasswordFile != "", t.KeyPasswordFile},
		{"key_password_env", t.KeyPasswordEnv != "", t.KeyPasswordEnv},
		{"keystore_alias", t.KeystoreAlias != "", t.KeystoreAlias},
		{"server_name", t.ServerName != "", t.ServerName},
		{"insecure_skip_verify", t.InsecureSkipVerify, t.InsecureSkipVerify},
	}
}

type tlsSetting struct {
	key string
	set bool
	val any
}
