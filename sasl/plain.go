package sasl

import (
	"context"

	kgosasl "github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"

	"github.com/kafka-bench/kafka_bench_exporter/secret"
)

// PLAIN is the mechanism of a username and a password sent as they are
// (over TLS, else the section warns).
const PLAIN = "PLAIN"

type plainMechanism struct{}

func (plainMechanism) names() []string              { return []string{PLAIN} }
func (plainMechanism) block(*Config) (string, bool) { return "", false }
func (plainMechanism) validate(c *Config) error     { return c.validatePassword() }
func (plainMechanism) kinds() []string              { return []string{KindSASLPassword} }
func (plainMechanism) resolve(c *Config, r Reader) (Material, error) {
	pw, err := c.resolvePassword(r)
	if err != nil {
		return nil, err
	}
	return plainMaterial{user: c.Username, password: pw}, nil
}

type plainMaterial struct {
	user     string
	password secret.Resolved
}

func (m plainMaterial) Mechanism(rt Runtime) (kgosasl.Mechanism, error) {
	pass, err := getPassword(rt, m.password)
	if err != nil {
		return nil, err
	}
	return plain.Plain(func(context.Context) (plain.Auth, error) {
		return plain.Auth{User: m.user, Pass: pass()}, nil
	}), nil
}
