package sasl

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kafka-bench/kafka_bench_exporter/internal/testcerts"
)

// GSSAPI: keytab or password, realm from the key or krb5.conf, the
// service name's default; the password never prints; mistakes are one
// line naming the key.
func TestKerberosSettings(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "krb5.conf"), "[libdefaults]\n default_realm = EXAMPLE.COM\n")
	write(t, filepath.Join(dir, "norealm.conf"), "[libdefaults]\n rdns = false\n")
	write(t, filepath.Join(dir, "bench.keytab"), string(testcerts.Keytab(t, "bench", "EXAMPLE.COM", "pw")))
	write(t, filepath.Join(dir, "bad.keytab"), "not a keytab")
	write(t, filepath.Join(dir, "pw"), "krb-pw-123\n")
	if _, _, err := loadSASL(dir, `{mechanism: GSSAPI, username: bench, kerberos: {keytab_file: bench.keytab, config_file: krb5.conf}}`); err != nil {
		t.Fatal(err)
	}
	if _, _, err := loadSASL(dir, `{mechanism: GSSAPI, username: bench, password_file: pw, kerberos: {realm: OTHER.ORG, service_name: kafka-svc, config_file: krb5.conf}}`); err != nil {
		t.Fatal(err)
	}
	c, _, err := loadSASL(dir, `{mechanism: GSSAPI, username: bench, password: krb-pw-123, kerberos: {realm: OTHER.ORG, config_file: krb5.conf}}`)
	if err != nil {
		t.Fatal(err)
	}
	if shows(t, "krb-pw-123", c) {
		t.Error("the inline password is printed")
	}
	for sasl, want := range map[string]string{
		`{mechanism: GSSAPI, kerberos: {keytab_file: bench.keytab, config_file: krb5.conf}}`:                                     `kafka.sasl.username = "": must be set with mechanism GSSAPI: the Kerberos principal, without the realm`,
		`{mechanism: GSSAPI, username: bench, kerberos: {config_file: krb5.conf}}`:                                               `kafka.sasl.kerberos.keytab_file = "": set keytab_file or a kafka.sasl password (password_file, password_env, password) with mechanism GSSAPI`,
		`{mechanism: GSSAPI, username: bench, password_file: pw, kerberos: {keytab_file: bench.keytab, config_file: krb5.conf}}`: `kafka.sasl.kerberos.keytab_file = "bench.keytab": set keytab_file or a kafka.sasl password, not both`,
		`{mechanism: GSSAPI, username: bench, kerberos: {keytab_file: bad.keytab, config_file: krb5.conf}}`:                      `kafka.sasl.kerberos.keytab_file = "bad.keytab": not a keytab`,
		`{mechanism: GSSAPI, username: bench, kerberos: {keytab_file: bench.keytab, config_file: norealm.conf}}`:                 `kafka.sasl.kerberos.realm = "": must be set: the krb5.conf has no default_realm`,
		`{mechanism: GSSAPI, username: bench, kerberos: {keytab_file: bench.keytab, config_file: absent.conf}}`:                  `kafka.sasl.kerberos.config_file = "absent.conf": cannot read: no such file or directory`,
		`{mechanism: PLAIN, username: a, password: b, kerberos: {realm: X}}`:                                                     `kafka.sasl.kerberos = "": only with mechanism GSSAPI, not PLAIN`,
	} {
		if _, _, err := loadSASL(dir, sasl); err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("sasl %s:\n got: %v\nwant: …%s", sasl, err, want)
		}
	}
}
