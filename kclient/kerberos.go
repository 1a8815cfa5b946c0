package kclient

import (
	"context"
	"fmt"
	"log/slog"

	krb5client "github.com/jcmturner/gokrb5/v8/client"
	krb5config "github.com/jcmturner/gokrb5/v8/config"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/kerberos"

	"github.com/kafka-bench/kafka_bench_exporter/config"
)

// Kinds of the Kerberos files, for the credential reload metrics.
const (
	KindKerberosKeytab = "kerberos_keytab"
	KindKerberosConf   = "kerberos_conf"
)

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

// newKerberos is the GSSAPI mechanism of s: every authentication logs in
// anew with the current keytab (or password) and krb5.conf, so rotated
// files are used by the next connection.
func newKerberos(s config.SASL, m *CredentialMetrics, logger *slog.Logger) (sasl.Mechanism, error) {
	k := s.Kerberos
	user, realm, service := s.Username, k.RealmName(), k.Service()
	confData, err := readAll(k.ConfigPath())
	if err != nil {
		return nil, err
	}
	conf, err := loadKrb5Conf([][]byte{confData})
	if err != nil {
		return nil, fmt.Errorf("kafka.sasl.kerberos.config_file: %w", err)
	}
	confs := newWatched(KindKerberosConf, []string{k.ConfigPath()}, conf, loadKrb5Conf, m, logger)
	var login func(*krb5config.Config) *krb5client.Client
	// MIT and Active Directory KDCs without FAST refuse its padata.
	noFAST := krb5client.DisablePAFXFAST(true)
	if p := k.KeytabPath(); p != "" {
		b, err := readAll(p)
		if err != nil {
			return nil, err
		}
		kt, err := loadKeytab([][]byte{b})
		if err != nil {
			return nil, fmt.Errorf("kafka.sasl.kerberos.keytab_file: %w", err)
		}
		kts := newWatched(KindKerberosKeytab, []string{p}, kt, loadKeytab, m, logger)
		login = func(c *krb5config.Config) *krb5client.Client {
			return krb5client.NewWithKeytab(user, realm, kts.get(), c, noFAST)
		}
	} else {
		password := func() string { return s.Secret().Reveal() }
		if p := s.PasswordPath(); p != "" {
			password = newWatched(KindSASLPassword, []string{p}, s.Secret().Reveal(), loadSecret, m, logger).get
		}
		login = func(c *krb5config.Config) *krb5client.Client {
			return krb5client.NewWithPassword(user, realm, password(), c, noFAST)
		}
	}
	principal := user + "@" + realm
	return kerberos.Kerberos(func(context.Context) (kerberos.Auth, error) {
		cl := login(confs.get())
		if err := cl.Login(); err != nil {
			return kerberos.Auth{}, &KerberosError{Principal: principal, Err: err}
		}
		return kerberos.Auth{Client: cl, Service: service}, nil
	}), nil
}

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
