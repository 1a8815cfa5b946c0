package config

import (
	krb5config "github.com/jcmturner/gokrb5/v8/config"
	"github.com/jcmturner/gokrb5/v8/keytab"
)

// SASLGSSAPI is the Kerberos mechanism (kafka.sasl.kerberos).
const SASLGSSAPI = "GSSAPI"

const (
	defaultKerberosService = "kafka"
	defaultKrb5Conf        = "/etc/krb5.conf"
)

// Kerberos configures GSSAPI (kafka.sasl.kerberos); the principal is
// kafka.sasl.username, its key from keytab_file or its password from
// kafka.sasl.password_file (or password, password_env).
type Kerberos struct {
	// Realm of the principal; empty: default_realm of config_file.
	Realm string `yaml:"realm"`
	// ServiceName is the brokers' principal's first part (Kafka's
	// sasl.kerberos.service.name; empty: kafka); the host part is each
	// broker's host.
	ServiceName string `yaml:"service_name"`
	KeytabFile  string `yaml:"keytab_file"`
	// ConfigFile is the krb5.conf that names the KDCs of the realm
	// (empty: /etc/krb5.conf).
	ConfigFile string `yaml:"config_file"`

	resolved *kerberosFiles
}

type kerberosFiles struct {
	keytabPath, confPath string
	realm                string
}

func (k *Kerberos) set() bool {
	return k.Realm != "" || k.ServiceName != "" || k.KeytabFile != "" || k.ConfigFile != ""
}

// validate checks kafka.sasl.kerberos for GSSAPI; hasPassword says that a
// password source of kafka.sasl is set.
func (k *Kerberos) validate(dir string, hasPassword bool) error {
	k.resolved = nil
	const p = "kafka.sasl.kerberos."
	confFile := k.ConfigFile
	if confFile == "" {
		confFile = defaultKrb5Conf
	}
	switch {
	case k.KeytabFile == "" && !hasPassword:
		return FieldError("", p+"keytab_file", "", "set keytab_file or a kafka.sasl password (password_file, password_env, password) with mechanism GSSAPI")
	case k.KeytabFile != "" && hasPassword:
		return FieldError("", p+"keytab_file", k.KeytabFile, "set keytab_file or a kafka.sasl password, not both")
	}
	f := kerberosFiles{confPath: resolvePath(dir, confFile), realm: k.Realm}
	b, err := readFile(p+"config_file", dir, confFile)
	if err != nil {
		return err
	}
	conf, err := krb5config.NewFromString(string(b))
	if err != nil {
		return FieldError("", p+"config_file", confFile, "not a krb5.conf: "+err.Error())
	}
	if f.realm == "" {
		if f.realm = conf.LibDefaults.DefaultRealm; f.realm == "" {
			return FieldError("", p+"realm", "", "must be set: the krb5.conf has no default_realm")
		}
	}
	if k.KeytabFile != "" {
		f.keytabPath = resolvePath(dir, k.KeytabFile)
		b, err := readFile(p+"keytab_file", dir, k.KeytabFile)
		if err != nil {
			return err
		}
		if err := new(keytab.Keytab).Unmarshal(b); err != nil {
			return FieldError("", p+"keytab_file", k.KeytabFile, "not a keytab: "+err.Error())
		}
	}
	k.resolved = &f
	return nil
}

// KeytabPath is keytab_file made absolute; "" with a password.
func (k Kerberos) KeytabPath() string { return k.files().keytabPath }

// ConfigPath is config_file made absolute.
func (k Kerberos) ConfigPath() string { return k.files().confPath }

// RealmName is realm, or the krb5.conf's default_realm.
func (k Kerberos) RealmName() string { return k.files().realm }

// Service is service_name with its default.
func (k Kerberos) Service() string {
	if k.ServiceName == "" {
		return defaultKerberosService
	}
	return k.ServiceName
}

func (k Kerberos) files() kerberosFiles {
	if k.resolved == nil {
		_ = k.validate("", false)
	}
	if k.resolved == nil {
		return kerberosFiles{}
	}
	return *k.resolved
}
