package sasl

import (
	"errors"

	"github.com/kafka-bench/kafka_bench_exporter/redact"
	"github.com/kafka-bench/kafka_bench_exporter/secret"
)

// KindSASLPassword is the `kind` of a password file (kafka.sasl.password_file)
// in the credential reload metrics.
const KindSASLPassword = "sasl_password"

// The username and password of PLAIN, SCRAM and GSSAPI: the password from
// exactly one of password, password_file and password_env (a
// secret.Source).

// password is the password's source.
func (c *Config) password() secret.Source {
	return secret.Source{Key: "password", Inline: c.Password, File: c.PasswordFile, Env: c.PasswordEnv, Required: true}
}

func (c *Config) hasPassword() bool { return c.password().Set() }

// noPassword refuses a username and a password for a mechanism that names
// its principal otherwise (why says how).
func (c *Config) noPassword(user, password string) error {
	if c.Username != "" {
		return fieldError("username", c.Username, "not used with mechanism "+c.Mechanism+": "+user)
	}
	if key, val, ok := c.password().Given(); ok {
		return fieldError(key, val, "not used with mechanism "+c.Mechanism+": "+password)
	}
	return nil
}

// validatePassword checks the username and that exactly one password
// source is set.
func (c *Config) validatePassword() error {
	if c.Username == "" {
		return fieldError("username", c.Username, "must be set with mechanism "+c.Mechanism)
	}
	return secretError(c.password().Validate())
}

// resolvePassword reads the password from its source.
func (c *Config) resolvePassword(r Reader) (secret.Resolved, error) {
	p, err := c.password().Resolve(r)
	return p, secretError(err)
}

// getPassword is the current password: password_file's content as it is
// now.
func getPassword(rt Runtime, p secret.Resolved) (func() string, error) {
	if p.Path == "" {
		return p.Value.Reveal, nil
	}
	return watch(rt, KindSASLPassword, []string{p.Path}, p.Value.Reveal(), loadSecret)
}

// readSecret reads a file holding one secret (secret.ReadFile).
func readSecret(r Reader, key, path string) (redact.Secret, string, error) {
	v, abs, err := secret.ReadFile(r, key, path)
	return v, abs, secretError(err)
}

// loadSecret is a changed one-line secret file (secret.Load).
func loadSecret(b [][]byte) (string, error) {
	s, err := secret.Load(b[0])
	return s.Reveal(), err
}

// secretError shows a secret's problem as one of kafka.sasl's keys.
func secretError(err error) error {
	if e, ok := errors.AsType[*secret.Error](err); ok {
		return fieldError(e.Key, e.Value, e.Problem)
	}
	return err
}
