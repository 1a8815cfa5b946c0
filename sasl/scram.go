package sasl

import (
	"context"

	kgosasl "github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/kafka-bench/kafka_bench_exporter/secret"
)

// SCRAM mechanisms (RFC 5802, 7677): a username and a password, proven
// without sending it.
const (
	ScramSHA256 = "SCRAM-SHA-256"
	ScramSHA512 = "SCRAM-SHA-512"
)

type scramMechanism struct{}

func (scramMechanism) names() []string              { return []string{ScramSHA256, ScramSHA512} }
func (scramMechanism) block(*Config) (string, bool) { return "", false }
func (scramMechanism) validate(c *Config) error     { return c.validatePassword() }
func (scramMechanism) kinds() []string              { return []string{KindSASLPassword} }
func (scramMechanism) resolve(c *Config, r Reader) (Material, error) {
	pw, err := c.resolvePassword(r)
	if err != nil {
		return nil, err
	}
	return scramMaterial{sha512: c.Mechanism == ScramSHA512, user: c.Username, password: pw}, nil
}

type scramMaterial struct {
	sha512   bool
	user     string
	password secret.Resolved
}

func (m scramMaterial) Mechanism(rt Runtime) (kgosasl.Mechanism, error) {
	pass, err := getPassword(rt, m.password)
	if err != nil {
		return nil, err
	}
	auth := func(context.Context) (scram.Auth, error) { return scram.Auth{User: m.user, Pass: pass()}, nil }
	if m.sha512 {
		return scram.Sha512(auth), nil
	}
	return scram.Sha256(auth), nil
}
