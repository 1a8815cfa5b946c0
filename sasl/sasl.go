// Package sasl holds the SASL mechanisms of a kafka section (kafka.sasl),
// one file each: a mechanism's settings, their validation (pure), what the
// resolve step reads for it (files and environment variables, through a
// Reader) and the franz-go mechanism built from that, whose files are read
// again when they change (through a Runtime). config decodes and validates
// kafka.sasl with it and reads its files in its resolve step; kclient
// builds the clients' mechanisms from the resolved Material.
//
// Adding a mechanism is adding its file: a type implementing mechanism,
// listed in mechanisms, with its block (if it has one) in Config.
package sasl

import (
	"errors"
	"log/slog"
	"slices"
	"strings"

	kgosasl "github.com/twmb/franz-go/pkg/sasl"

	"github.com/kafka-bench/kafka_bench_exporter/redact"
	"github.com/kafka-bench/kafka_bench_exporter/secret"
)

// Config is kafka.sasl as the file spells it; an empty mechanism turns SASL
// off. The username and the password (from exactly one of Password,
// PasswordFile and PasswordEnv) serve PLAIN, SCRAM and GSSAPI; the other
// mechanisms have a block of their own.
type Config struct {
	Mechanism string `yaml:"mechanism" default:"(off)" values:"{PLAIN}, {SCRAM-SHA-256}, {SCRAM-SHA-512}, {OAUTHBEARER}, {GSSAPI}, {AWS_MSK_IAM}" doc:"SASL authentication; needs {kafka.brokers}"`
	// OAuth configures mechanism OAUTHBEARER.
	OAuth OAuth `yaml:"oauth"`
	// Kerberos configures mechanism GSSAPI.
	Kerberos Kerberos `yaml:"kerberos"`
	// AWS configures mechanism AWS_MSK_IAM.
	AWS          AWS           `yaml:"aws"`
	Username     string        `yaml:"username" values:"required with a mechanism"`
	Password     redact.Secret `yaml:"password" values:"exactly one of {password}, {password_file}, {password_env}" doc:"the password inline; never printed ({<secret>})"`
	PasswordFile string        `yaml:"password_file" values:"exactly one of {password}, {password_file}, {password_env}" doc:"a file whose content is the password (trailing newline dropped)"`
	PasswordEnv  string        `yaml:"password_env" values:"exactly one of {password}, {password_file}, {password_env}" doc:"an environment variable that holds the password"`
}

// mechanism is one SASL mechanism (or a family of them, SCRAM's two
// hashes): its names, its block, its checks, what it reads at resolve and
// the kinds of rotating files it watches.
type mechanism interface {
	// names are the values of kafka.sasl.mechanism it serves.
	names() []string
	// block is the key of its own block under kafka.sasl and whether c
	// sets it; "" for a mechanism without one.
	block(c *Config) (key string, set bool)
	// validate checks c for the mechanism named c.Mechanism, reading
	// nothing.
	validate(c *Config) error
	// resolve reads what c names.
	resolve(c *Config, r Reader) (Material, error)
	// kinds are the `kind` labels of its rotating files.
	kinds() []string
}

// mechanisms are every mechanism, in the order of the docs and of the
// credential metrics' kinds.
var mechanisms = []mechanism{plainMechanism{}, scramMechanism{}, oauthMechanism{}, gssapiMechanism{}, awsMechanism{}}

// Names are the values kafka.sasl.mechanism accepts (besides empty, no
// SASL), for the checks and for the deployment files that offer the same
// choice.
func Names() []string {
	var out []string
	for _, m := range mechanisms {
		out = append(out, m.names()...)
	}
	return out
}

// Kinds are the `kind` labels of every mechanism's rotating files, each
// once, in the order of mechanisms.
func Kinds() []string {
	var out []string
	for _, m := range mechanisms {
		for _, k := range m.kinds() {
			if !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	return out
}

func lookup(name string) mechanism {
	for _, m := range mechanisms {
		if slices.Contains(m.names(), name) {
			return m
		}
	}
	return nil
}

// Error is a problem with one key of kafka.sasl: Key is relative to it
// ("username", "oauth.token_file"; "" for kafka.sasl itself), Value the
// value as written. config shows it in the one shape of every
// configuration error, named for the section it is in.
type Error struct {
	Key     string
	Value   any
	Problem string
}

func (e *Error) Error() string { return "kafka.sasl." + e.Key + ": " + e.Problem }

func fieldError(key string, value any, problem string) error {
	return &Error{Key: key, Value: value, Problem: problem}
}

// Reader reads what the settings name, for the resolve step: a file whose
// key is relative to kafka.sasl, and an environment variable.
type Reader = secret.Reader

// Material is what the resolve step read for a mechanism: the initial
// secrets and the files to watch. It is a value, never changed once made:
// two resolves of unchanged files and variables give equal Material
// (reflect.DeepEqual), a changed file an unequal one.
type Material interface {
	// Mechanism is the franz-go mechanism; its files are read again
	// through rt when they change.
	Mechanism(rt Runtime) (kgosasl.Mechanism, error)
}

// Runtime is what the Kafka client gives a mechanism: files watched for
// changes (counted and logged by kind), the token-fetch metrics and the
// logger.
type Runtime interface {
	// Watch returns the current material of the files at paths: initial,
	// and what load makes of their contents once they change. A change
	// that does not load keeps the previous material.
	// The files must be readable now.
	Watch(kind string, paths []string, initial any, load func([][]byte) (any, error)) (func() any, error)
	// TokenFetched counts a token request, failed or not.
	TokenFetched(ok bool)
	Logger() *slog.Logger
}

// watch is Runtime.Watch for material of type T.
func watch[T any](rt Runtime, kind string, paths []string, initial T, load func([][]byte) (T, error)) (func() T, error) {
	get, err := rt.Watch(kind, paths, initial, func(b [][]byte) (any, error) {
		v, err := load(b)
		if err != nil {
			return nil, err
		}
		return v, nil
	})
	if err != nil {
		return nil, err
	}
	return func() T { return get().(T) }, nil
}

// mechanismList is the list of Names for messages.
const mechanismList = "PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER, GSSAPI or AWS_MSK_IAM"

// Validate checks kafka.sasl without reading anything: the mechanism is
// known, every block set belongs to it, and its own settings hold.
func (c *Config) Validate() error {
	if c.Mechanism == "" {
		switch {
		case c.Username != "":
			return fieldError("username", c.Username, "kafka.sasl.mechanism is not set ("+mechanismList+")")
		case c.hasPassword():
			return fieldError("mechanism", "", "must be set when a password is (PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512)")
		}
		for _, m := range mechanisms {
			if key, set := m.block(c); set {
				return fieldError("mechanism", "", "must be "+m.names()[0]+" when kafka.sasl."+key+" is set")
			}
		}
		return nil
	}
	m := lookup(c.Mechanism)
	if m == nil {
		return fieldError("mechanism", c.Mechanism, "must be one of "+strings.Join(Names(), ", "))
	}
	if err := m.validate(c); err != nil {
		return err
	}
	for _, other := range mechanisms {
		if key, set := other.block(c); set && other != m {
			return fieldError(key, "", "only with mechanism "+other.names()[0]+", not "+c.Mechanism)
		}
	}
	return nil
}

// Resolve reads what the validated c names; nil without a mechanism.
func Resolve(c Config, r Reader) (Material, error) {
	if c.Mechanism == "" {
		return nil, nil
	}
	m := lookup(c.Mechanism)
	if m == nil {
		return nil, fieldError("mechanism", c.Mechanism, "must be one of "+strings.Join(Names(), ", "))
	}
	return m.resolve(&c, r)
}

// IsAuthError reports whether err is a mechanism's failure to get
// credentials (a token, a Kerberos login, AWS credentials): like a broker's
// refusal, it does not heal by retrying.
func IsAuthError(err error) bool {
	var ce credentialsError
	return errors.As(err, &ce)
}

// credentialsError is implemented by each mechanism's error for
// credentials it could not get.
type credentialsError interface {
	error
	credentials()
}
