package sasl

import (
	"context"
	"errors"

	kgosasl "github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
)

// PLAIN is the mechanism of a username and a password sent as they are
// (over TLS, else the section warns).
const PLAIN = "PLAIN"

var errEmptyFile = errors.New("the file is empty")

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
	password password
}

func (m plainMaterial) Mechanism(rt Runtime) (kgosasl.Mechanism, error) {
	pass, err := m.password.get(rt)
	if err != nil {
		return nil, err
	}
	return plain.Plain(func(context.Context) (plain.Auth, error) {
		return plain.Auth{User: m.user, Pass: pass()}, nil
	}), nil
}
