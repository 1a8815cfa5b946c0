package sasl

import (
	"context"
	"fmt"

	krb5client "github.com/jcmturner/gokrb5/v8/client"
	krb5config "github.com/jcmturner/gokrb5/v8/config"
	"github.com/jcmturner/gokrb5/v8/keytab"
	kgosasl "github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/kerberos"

	"github.com/kafka-bench/kafka_bench_exporter/secret"
)

// GSSAPI is the Kerberos mechanism (kafka.sasl.kerberos).
const GSSAPI = "GSSAPI"

const (
	defaultKerberosService = "kafka"
	defaultKrb5Conf        = "/etc/krb5.conf"
)

// Kinds of the Kerberos files, for the credential reload metrics.
const (
	KindKerberosKeytab = "kerberos_keytab"
	KindKerberosConf   = "kerberos_conf"
)

type gssapiMechanism struct{}

func (gssapiMechanism) names() []string { return []string{GSSAPI} }
func (gssapiMechanism) kinds() []string {
	return []string{KindSASLPassword, KindKerberosKeytab, KindKerberosConf}
}
func (gssapiMechanism) block(c *Config) (string, bool) { return "kerberos", c.Kerberos.set() }

func (gssapiMechanism) validate(c *Config) error {
	if c.Username == "" {
		return fieldError("username", c.Username, "must be set with mechanism GSSAPI: the Kerberos principal, without the realm")
	}
	if err := c.Kerberos.validate(c.hasPassword()); err != nil {
		return err
	}
	if !c.hasPassword() {
		return nil // the keytab holds the key
	}
	return c.validatePassword()
}

// resolve reads the krb5.conf (for the realm) and checks the keytab, or
// reads the password.
func (gssapiMechanism) resolve(c *Config, r Reader) (Material, error) {
	k := c.Kerberos
	const p = "kerberos."
	confFile := k.ConfigFile
	if confFile == "" {
		confFile = defaultKrb5Conf
	}
	m := gssapiMaterial{user: c.Username, realm: k.Realm, service: k.Service()}
	b, abs, err := r.ReadFile(p+"config_file", confFile)
	if err != nil {
		return nil, err
	}
	m.confPath, m.conf = abs, b
	conf, err := krb5config.NewFromString(string(b))
	if err != nil {
		return nil, fieldError(p+"config_file", confFile, "not a krb5.conf: "+err.Error())
	}
	if m.realm == "" {
		if m.realm = conf.LibDefaults.DefaultRealm; m.realm == "" {
			return nil, fieldError(p+"realm", "", "must be set: the krb5.conf has no default_realm")
		}
	}
	if k.KeytabFile == "" {
		if m.password, err = c.resolvePassword(r); err != nil {
			return nil, err
		}
		return m, nil
	}
	if m.keytab, m.keytabPath, err = r.ReadFile(p+"keytab_file", k.KeytabFile); err != nil {
		return nil, err
	}
	if _, err := loadKeytab([][]byte{m.keytab}); err != nil {
		return nil, fieldError(p+"keytab_file", k.KeytabFile, err.Error())
	}
	return m, nil
}

// gssapiMaterial is the principal, the krb5.conf and the keytab (or the
// password) as read: contents, compared as such.
type gssapiMaterial struct {
	user, realm, service string
	confPath             string
	conf                 []byte
	keytabPath           string
	keytab               []byte
	password             secret.Resolved
}

// Mechanism logs in anew at every authentication with the current keytab
// (or password) and krb5.conf, so rotated files are used by the next
// connection.
func (m gssapiMaterial) Mechanism(rt Runtime) (kgosasl.Mechanism, error) {
	user, realm, service := m.user, m.realm, m.service
	conf, err := loadKrb5Conf([][]byte{m.conf})
	if err != nil {
		return nil, fmt.Errorf("kafka.sasl.kerberos.config_file: %w", err)
	}
	confs, err := watch(rt, KindKerberosConf, []string{m.confPath}, conf, loadKrb5Conf)
	if err != nil {
		return nil, err
	}
	var login func(*krb5config.Config) *krb5client.Client
	// MIT and Active Directory KDCs without FAST refuse its padata.
	noFAST := krb5client.DisablePAFXFAST(true)
	if m.keytabPath != "" {
		kt, err := loadKeytab([][]byte{m.keytab})
		if err != nil {
			return nil, fmt.Errorf("kafka.sasl.kerberos.keytab_file: %w", err)
		}
		kts, err := watch(rt, KindKerberosKeytab, []string{m.keytabPath}, kt, loadKeytab)
		if err != nil {
			return nil, err
		}
		login = func(c *krb5config.Config) *krb5client.Client {
			return krb5client.NewWithKeytab(user, realm, kts(), c, noFAST)
		}
	} else {
		password, err := getPassword(rt, m.password)
		if err != nil {
			return nil, err
		}
		login = func(c *krb5config.Config) *krb5client.Client {
			return krb5client.NewWithPassword(user, realm, password(), c, noFAST)
		}
	}
	principal := user + "@" + realm
	return kerberos.Kerberos(func(context.Context) (kerberos.Auth, error) {
		cl := login(confs())
		if err := cl.Login(); err != nil {
			return kerberos.Auth{}, &KerberosError{Principal: principal, Err: err}
		}
		return kerberos.Auth{Client: cl, Service: service}, nil
	}), nil
}

// Kerberos configures GSSAPI (kafka.sasl.kerberos); the principal is
// kafka.sasl.username, its key from keytab_file or its password from
// kafka.sasl.password_file (or password, password_env).
type Kerberos struct {
	// Realm of the principal; empty: default_realm of config_file.
	Realm string `yaml:"realm" default:"(krb5.conf's {default_realm})" doc:"the principal's realm"`
	// ServiceName is the brokers' principal's first part (Kafka's
	// sasl.kerberos.service.name; empty: kafka); the host part is each
	// broker's host.
	ServiceName string `yaml:"service_name" default:"({kafka})" doc:"first part of the brokers' principals (Kafka's {sasl.kerberos.service.name}); the host part is each broker's host"`
	KeytabFile  string `yaml:"keytab_file" values:"or a {kafka.sasl} password ({password_file}, ...) instead" doc:"GSSAPI: the keytab of {kafka.sasl.username}"`
	// ConfigFile is the krb5.conf that names the KDCs of the realm
	// (empty: /etc/krb5.conf).
	ConfigFile string `yaml:"config_file" default:"({/etc/krb5.conf})" doc:"the krb5.conf naming the realm's KDCs"`
}

func (k *Kerberos) set() bool {
	return k.Realm != "" || k.ServiceName != "" || k.KeytabFile != "" || k.ConfigFile != ""
}

// validate checks kafka.sasl.kerberos for GSSAPI; hasPassword says that a
// password source of kafka.sasl is set.
func (k *Kerberos) validate(hasPassword bool) error {
	const p = "kerberos."
	switch {
	case k.KeytabFile == "" && !hasPassword:
		return fieldError(p+"keytab_file", "", "set keytab_file or a kafka.sasl password (password_file, password_env, password) with mechanism GSSAPI")
	case k.KeytabFile != "" && hasPassword:
		return fieldError(p+"keytab_file", k.KeytabFile, "set keytab_file or a kafka.sasl password, not both")
	}
	return nil
}

// Service is service_name with its default.
func (k Kerberos) Service() string {
	if k.ServiceName == "" {
		return defaultKerberosService
	}
	return k.ServiceName
}

// KerberosError is a Kerberos login that failed (a wrong key or password,
// an unknown principal, no KDC): probes report it as an authentication
// failure.
type KerberosError struct {
	Principal string
	Err       error
}

func (e *KerberosError) Error() string {
	return fmt.Sprintf("Kerberos login of %s: %v", e.Principal, e.Err)
}

func (e *KerberosError) Unwrap() error { return e.Err }

func (*KerberosError) credentials() {}

func loadKrb5Conf(b [][]byte) (*krb5config.Config, error) {
	return krb5config.NewFromString(string(b[0]))
}

func loadKeytab(b [][]byte) (*keytab.Keytab, error) {
	kt := new(keytab.Keytab)
	if err := kt.Unmarshal(b[0]); err != nil {
		return nil, fmt.Errorf("not a keytab: %w", err)
	}
	return kt, nil
}
