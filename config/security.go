package config

import (
	"errors"
	"strings"

	"github.com/kafka-bench/kafka_bench_exporter/redact"
	"github.com/kafka-bench/kafka_bench_exporter/sasl"
)

// TLS configures TLS to the brokers (kafka.tls).
type TLS struct {
	Enabled bool `yaml:"enabled" doc:"TLS to the brokers; needs {kafka.brokers}; see Security"`
	// CAFile verifies the brokers; empty uses the system roots.
	CAFile string `yaml:"ca_file" default:"(system roots)" doc:"PEM CA certificate(s) that verify the brokers; a relative path is relative to the configuration file"`
	// CertFile and KeyFile are the client certificate for mTLS.
	CertFile           string `yaml:"cert_file" values:"set with {kafka.tls.key_file}: both or neither" doc:"PEM client certificate (mTLS)"`
	KeyFile            string `yaml:"key_file" values:"set with {kafka.tls.cert_file}: both or neither" doc:"PEM client key (mTLS)"`
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
	return nil
}
