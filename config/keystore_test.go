package config

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/internal/testcerts"
)

const (
	storePW = "store-pw-4711"
	keyPW   = "key-pw-0815"
)

// stores writes a Set's Java stores into dir: trust.p12, client.p12 (one
// password, storePW), trust.jks and client.jks (store password storePW,
// key password keyPW), and the passwords as store.pw and key.pw.
// storesIn is a new directory with certificates (testcerts) and their
// stores (stores).
func storesIn(t *testing.T) (string, *testcerts.Set) {
	t.Helper()
	dir := t.TempDir()
	certs, err := testcerts.Generate(dir)
	if err != nil {
		t.Fatal(err)
	}
	stores(t, dir, certs)
	return dir, certs
}

func stores(t *testing.T, dir string, certs *testcerts.Set) {
	t.Helper()
	for name, make := range map[string]func() ([]byte, error){
		"trust.p12":  func() ([]byte, error) { return certs.PKCS12Truststore(storePW) },
		"client.p12": func() ([]byte, error) { return certs.PKCS12Keystore(storePW) },
		"trust.jks":  func() ([]byte, error) { return certs.JKSTruststore(storePW) },
		"client.jks": func() ([]byte, error) { return certs.JKSKeystore(storePW, keyPW) },
		"two.jks":    func() ([]byte, error) { return certs.JKSKeystore(storePW, storePW, "one", "two") },
		"store.pw":   func() ([]byte, error) { return []byte(storePW + "\n"), nil },
		"key.pw":     func() ([]byte, error) { return []byte(keyPW + "\n"), nil },
	} {
		b, err := make()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// handshake connects with tc to a TLS server with the server certificate
// of certs that requires a client certificate signed by its CA, and
// returns the handshake's error, the client's or the server's.
func handshake(t *testing.T, tc *tls.Config, certs *testcerts.Set) error {
	t.Helper()
	ln, err := tls.Listen("tcp", "127.0.0.1:0", certs.ServerTLS(true))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ln.Close() }()
	served := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			served <- err
			return
		}
		defer func() { _ = c.Close() }()
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		served <- c.(*tls.Conn).Handshake()
	}()
	c, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", ln.Addr().String(), tc)
	if err == nil {
		// TLS 1.3: a refused client certificate shows at the first read.
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		_, err = c.Read(make([]byte, 1))
		if errors.Is(err, os.ErrDeadlineExceeded) || err != nil && strings.Contains(err.Error(), "EOF") {
			err = nil
		}
		_ = c.Close()
	}
	return errors.Join(err, <-served)
}

// resolveTLSYAML loads a configuration whose kafka.tls is tlsYAML, with
// files in dir, and resolves it.
func resolveTLSYAML(dir, tlsYAML string) (*Resolved, error) {
	file := filepath.Join(dir, "config.yml")
	if err := os.WriteFile(file, []byte("kafka:\n  brokers: [127.0.0.1:9093]\n  tls: {enabled: true, "+tlsYAML+"}\n"), 0o600); err != nil {
		return nil, err
	}
	return loadResolved(file)
}

// PKCS12 and JKS trust and key stores, with the passwords inline, from
// files and from the environment, verify the server and authenticate the
// client in a real mTLS handshake; the passwords are printed nowhere.
func TestKeystoresHandshake(t *testing.T) {
	dir, certs := storesIn(t)
	t.Setenv("KAFKA_BENCH_TEST_STORE_PW", storePW)
	for _, tc := range []string{
		"truststore_file: trust.p12, truststore_password: " + storePW + ", keystore_file: client.p12, keystore_type: PKCS12, keystore_password: " + storePW,
		"truststore_file: trust.p12, truststore_type: pkcs12, truststore_password_file: store.pw, keystore_file: client.p12, keystore_password_env: KAFKA_BENCH_TEST_STORE_PW",
		"truststore_file: trust.jks, truststore_type: JKS, truststore_password: " + storePW + ", keystore_file: client.jks, keystore_type: JKS, keystore_password: " + storePW + ", key_password: " + keyPW,
		"truststore_file: trust.jks, truststore_type: JKS, keystore_file: client.jks, keystore_type: JKS, keystore_password_file: store.pw, key_password_file: key.pw",
		"ca_file: ca.pem, keystore_file: client.jks, keystore_type: JKS, keystore_password_env: KAFKA_BENCH_TEST_STORE_PW, key_password: " + keyPW,
		"truststore_file: trust.p12, truststore_password: " + storePW + ", cert_file: client.pem, key_file: client-key.pem",
	} {
		res, err := resolveTLSYAML(dir, tc)
		if err != nil {
			t.Errorf("%s: %v", tc, err)
			continue
		}
		tlsc, err := res.Kafka.TLSConfig()
		if err != nil {
			t.Fatal(err)
		}
		if err := handshake(t, tlsc, certs); err != nil {
			t.Errorf("%s: the handshake failed: %v", tc, err)
		}
		out, err := res.Config.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		printed := string(out) + fmt.Sprintf("%v %+v %#v", res.Kafka, res.Kafka, res.Config.Kafka)
		if strings.Contains(printed, storePW) || strings.Contains(printed, keyPW) {
			t.Errorf("%s: a password is printed:\n%s", tc, printed)
		}
		if strings.Contains(tc, "_password: ") && !strings.Contains(string(out), "<secret>") {
			t.Errorf("%s: no <secret> in the effective configuration:\n%s", tc, out)
		}
	}

	// Without a client certificate the server refuses the handshake: the
	// check can fail.
	res, err := resolveTLSYAML(dir, "truststore_file: trust.p12, truststore_password: "+storePW)
	if err != nil {
		t.Fatal(err)
	}
	tlsc, err := res.Kafka.TLSConfig()
	if err != nil {
		t.Fatal(err)
	}
	if err := handshake(t, tlsc, certs); err == nil {
		t.Error("a handshake without the client certificate succeeded")
	}
}

// A truststore without the brokers' CA, or a keystore of a client the CA
// did not sign, loads but fails the handshake.
func TestKeystoresOfAnotherCAFailTheHandshake(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	certs, err := testcerts.Generate(dir)
	if err != nil {
		t.Fatal(err)
	}
	otherCerts, err := testcerts.Generate(other)
	if err != nil {
		t.Fatal(err)
	}
	stores(t, dir, certs)
	stores(t, other, otherCerts)
	for _, tc := range []string{
		"truststore_file: " + filepath.Join(other, "trust.p12") + ", truststore_password: " + storePW + ", keystore_file: client.p12, keystore_password: " + storePW,
		"truststore_file: " + filepath.Join(other, "trust.jks") + ", truststore_type: JKS, truststore_password: " + storePW + ", keystore_file: client.p12, keystore_password: " + storePW,
		"truststore_file: trust.p12, truststore_password: " + storePW + ", keystore_file: " + filepath.Join(other, "client.jks") + ", keystore_type: JKS, keystore_password: " + storePW + ", key_password: " + keyPW,
	} {
		res, err := resolveTLSYAML(dir, tc)
		if err != nil {
			t.Fatalf("%s: %v", tc, err)
		}
		tlsc, err := res.Kafka.TLSConfig()
		if err != nil {
			t.Fatal(err)
		}
		if err := handshake(t, tlsc, certs); err == nil {
			t.Errorf("%s: the handshake succeeded", tc)
		}
	}
}

// A store that does not open is one line naming the key and the path, and
// why; never a password.
func TestKeystoreErrors(t *testing.T) {
	dir, _ := storesIn(t)
	if err := os.WriteFile(filepath.Join(dir, "empty.pw"), []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "trust.p12"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cut.p12"), b[:len(b)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	const wrong = "wrong-pw-1234"
	for tc, want := range map[string]string{
		"truststore_file: trust.p12, truststore_password: " + wrong:                                                 `kafka.tls.truststore_file = "trust.p12": does not open with kafka.tls.truststore_password: a wrong password, or a damaged file`,
		"truststore_file: trust.p12":                                                                                `kafka.tls.truststore_file = "trust.p12": needs kafka.tls.truststore_password: the store is protected by one`,
		"truststore_file: trust.jks, truststore_type: JKS, truststore_password: " + wrong:                           `kafka.tls.truststore_file = "trust.jks": does not open with kafka.tls.truststore_password: a wrong password, or a damaged file`,
		"truststore_file: trust.jks, truststore_password: " + storePW:                                               `kafka.tls.truststore_file = "trust.jks": is a JKS store: set kafka.tls.truststore_type JKS`,
		"truststore_file: trust.p12, truststore_type: JKS, truststore_password: " + storePW:                         `kafka.tls.truststore_file = "trust.p12": is not a JKS store but a PKCS12 one, it seems: set kafka.tls.truststore_type PKCS12`,
		"truststore_file: ca.pem":                                                                                   `kafka.tls.truststore_file = "ca.pem": is a PEM file, not a store: set it as kafka.tls.ca_file`,
		"truststore_file: cut.p12, truststore_password: " + storePW:                                                 `kafka.tls.truststore_file = "cut.p12": does not read as a PKCS12 truststore`,
		"truststore_file: client.p12, truststore_password: " + storePW:                                              `kafka.tls.truststore_file = "client.p12": does not read as a PKCS12 truststore`,
		"truststore_file: client.jks, truststore_type: JKS, truststore_password: " + storePW:                        `kafka.tls.truststore_file = "client.jks": holds no trusted certificate entry`,
		"truststore_file: missing.p12":                                                                              `kafka.tls.truststore_file = "missing.p12": cannot read: no such file or directory`,
		"truststore_file: trust.p12, truststore_password_file: empty.pw":                                            `kafka.tls.truststore_password_file = "empty.pw": the file is empty`,
		"truststore_file: trust.p12, truststore_password_env: KAFKA_BENCH_TEST_UNSET_PW":                            `kafka.tls.truststore_password_env = "KAFKA_BENCH_TEST_UNSET_PW": environment variable is not set or empty`,
		"keystore_file: client.p12, keystore_password: " + wrong:                                                    `kafka.tls.keystore_file = "client.p12": does not open with kafka.tls.keystore_password: a wrong password, or a damaged file`,
		"keystore_file: client.p12, keystore_password: " + storePW + ", key_password: " + keyPW:                     `kafka.tls.keystore_file = "client.p12": kafka.tls.key_password differs from keystore_password: a PKCS12 keystore's key has the store's password`,
		"keystore_file: trust.p12, keystore_password: " + storePW:                                                   `kafka.tls.keystore_file = "trust.p12": does not read as a PKCS12 keystore`,
		"keystore_file: client.jks, keystore_type: JKS, keystore_password: " + wrong:                                `kafka.tls.keystore_file = "client.jks": does not open with kafka.tls.keystore_password: a wrong password, or a damaged file`,
		"keystore_file: client.jks, keystore_type: JKS, keystore_password: " + storePW:                              `kafka.tls.keystore_file = "client.jks": key entry "client" does not open with kafka.tls.key_password (default: the keystore's password)`,
		"keystore_file: client.jks, keystore_type: JKS, keystore_password: " + storePW + ", key_password: " + wrong: `kafka.tls.keystore_file = "client.jks": key entry "client" does not open with kafka.tls.key_password`,
		"keystore_file: two.jks, keystore_type: JKS, keystore_password: " + storePW:                                 `kafka.tls.keystore_file = "two.jks": holds 2 private key entries (one, two): set kafka.tls.keystore_alias to the one of this client, or keep only it (Kafka's key manager would pick any of them)`,
		"keystore_file: two.jks, keystore_type: JKS, keystore_alias: three, keystore_password: " + storePW:          `kafka.tls.keystore_file = "two.jks": has no private key entry "three" (kafka.tls.keystore_alias); it holds one, two`,
		"keystore_file: trust.jks, keystore_type: JKS, keystore_password: " + storePW:                               `kafka.tls.keystore_file = "trust.jks": holds no private key entry`,
		"keystore_file: client.pem":                                                                                 `kafka.tls.keystore_file = "client.pem": is a PEM file, not a store: set it as kafka.tls.cert_file and key_file`,
	} {
		_, err := resolveTLSYAML(dir, tc)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s:\n got %v\nwant …%s…", tc, err, want)
			continue
		}
		if msg := err.Error(); strings.Contains(msg, "\n") || strings.Contains(msg, storePW) || strings.Contains(msg, keyPW) || strings.Contains(msg, wrong) {
			t.Errorf("%s: the error is not one line without the password: %q", tc, msg)
		}
	}
}

// kafka.tls.keystore_alias picks one of a JKS keystore's private key
// entries (in any case: keytool writes aliases in lower case), which
// without it is an error (TestKeystoreErrors).
func TestKeystoreAlias(t *testing.T) {
	dir, _ := storesIn(t)
	for _, alias := range []string{"two", "TWO", "one"} {
		if _, err := resolveTLSYAML(dir, "keystore_file: two.jks, keystore_type: JKS, keystore_alias: "+alias+", keystore_password: "+storePW); err != nil {
			t.Errorf("keystore_alias %s: %v", alias, err)
		}
	}
}

// The checks of kafka.tls that need no file: one line naming the key and
// the value.
func TestKeystoreValidation(t *testing.T) {
	for tc, want := range map[string]string{
		"enabled: true, ca_file: ca.pem, truststore_file: t.p12":                                      `kafka.tls.truststore_file = "t.p12": set kafka.tls.ca_file or kafka.tls.truststore_file, not both`,
		"enabled: true, cert_file: c.pem, key_file: k.pem, keystore_file: k.p12":                      `kafka.tls.keystore_file = "k.p12": set kafka.tls.cert_file and key_file or kafka.tls.keystore_file, not both`,
		"enabled: true, key_file: k.pem, keystore_file: k.p12":                                        `kafka.tls.keystore_file = "k.p12": set kafka.tls.key_file and cert_file or kafka.tls.keystore_file, not both`,
		"enabled: true, truststore_file: t.bks, truststore_type: BKS":                                 `kafka.tls.truststore_type = "BKS": must be PKCS12 or JKS`,
		"enabled: true, keystore_file: k.p12, keystore_type: PEM":                                     `kafka.tls.keystore_type = "PEM": must be PKCS12 or JKS`,
		"enabled: true, truststore_type: JKS":                                                         `kafka.tls.truststore_type = "JKS": needs kafka.tls.truststore_file, the store it describes`,
		"enabled: true, truststore_password: hunter2":                                                 `kafka.tls.truststore_password = <secret>: needs kafka.tls.truststore_file, the store it opens`,
		"enabled: true, ca_file: ca.pem, truststore_password_file: pw":                                `kafka.tls.truststore_password_file = "pw": needs kafka.tls.truststore_file, the store it opens`,
		"enabled: true, cert_file: c.pem, key_file: k.pem, key_password: hunter2":                     `kafka.tls.key_password = <secret>: needs kafka.tls.keystore_file, the store it opens`,
		"enabled: true, keystore_password_env: PW":                                                    `kafka.tls.keystore_password_env = "PW": needs kafka.tls.keystore_file, the store it opens`,
		"enabled: true, keystore_file: k.p12, keystore_password: hunter2, keystore_password_file: pw": `kafka.tls.keystore_password_file = "pw": set at most one of keystore_password, keystore_password_file, keystore_password_env (also set: keystore_password)`,
		"enabled: true, keystore_file: k.jks, keystore_type: JKS":                                     `kafka.tls.keystore_file = "k.jks": a JKS keystore needs kafka.tls.keystore_password`,
		"truststore_file: t.p12":                                                                      `kafka.tls.truststore_file = "t.p12": kafka.tls.enabled is false`,
		"key_password: hunter2":                                                                       `kafka.tls.key_password = <secret>: kafka.tls.enabled is false`,
		"enabled: true, keystore_alias: one":                                                          `kafka.tls.keystore_alias = "one": needs kafka.tls.keystore_file, the store it picks from`,
		"enabled: true, keystore_file: k.p12, keystore_alias: one":                                    `kafka.tls.keystore_alias = "one": only for a JKS keystore`,
	} {
		_, err := Parse([]byte("kafka:\n  brokers: [k:9093]\n  tls: {" + tc + "}\n"))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s:\n got %v\nwant …%s…", tc, err, want)
		}
		if err != nil && (strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "\n")) {
			t.Errorf("%s: %q", tc, err)
		}
	}
	// A JKS truststore needs no password (its integrity is then not
	// checked, as in Kafka); PKCS12 types in any case.
	for _, tc := range []string{"truststore_file: t.jks, truststore_type: JKS", "truststore_file: t.p12, truststore_type: pkcs12, keystore_file: k.jks, keystore_type: jks, keystore_password: x"} {
		if _, err := Parse([]byte("kafka:\n  brokers: [k:9093]\n  tls: {enabled: true, " + tc + "}\n")); err != nil {
			t.Errorf("%s: %v", tc, err)
		}
	}
}

// A JKS truststore without its password is read without the integrity
// check, as Kafka reads it.
func TestJKSTruststoreWithoutPassword(t *testing.T) {
	dir, certs := storesIn(t)
	res, err := resolveTLSYAML(dir, "truststore_file: trust.jks, truststore_type: JKS, cert_file: client.pem, key_file: client-key.pem")
	if err != nil {
		t.Fatal(err)
	}
	tlsc, err := res.Kafka.TLSConfig()
	if err != nil {
		t.Fatal(err)
	}
	if err := handshake(t, tlsc, certs); err != nil {
		t.Errorf("the handshake failed: %v", err)
	}
}

// The files a store is read from, for the client to load them again: the
// store and its password files; a rotated store (or password file) makes
// the configuration differ.
func TestKeystoreFilesForReloading(t *testing.T) {
	dir, _ := storesIn(t)
	res, err := resolveTLSYAML(dir, "truststore_file: trust.p12, truststore_password_file: store.pw, keystore_file: client.jks, keystore_type: JKS, keystore_password_file: store.pw, key_password_file: key.pw")
	if err != nil {
		t.Fatal(err)
	}
	caPaths, loadCA := res.Kafka.TLSCA()
	certPaths, loadCert := res.Kafka.TLSClientCert()
	abs := func(n ...string) []string {
		var out []string
		for _, f := range n {
			out = append(out, filepath.Join(dir, f))
		}
		return out
	}
	if fmt.Sprint(caPaths) != fmt.Sprint(abs("trust.p12", "store.pw")) || fmt.Sprint(certPaths) != fmt.Sprint(abs("client.jks", "store.pw", "key.pw")) {
		t.Fatalf("paths %v and %v", caPaths, certPaths)
	}
	read := func(paths []string) [][]byte {
		var out [][]byte
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, b)
		}
		return out
	}
	if _, err := loadCA(read(caPaths)); err != nil {
		t.Error(err)
	}
	if _, err := loadCert(read(certPaths)); err != nil {
		t.Error(err)
	}
	// A new password in the file and a store with the old one: no load.
	contents := read(certPaths)
	contents[1] = []byte("another-pw\n")
	if _, err := loadCert(contents); err == nil || strings.Contains(err.Error(), "another-pw") {
		t.Errorf("a store that the password file's new password does not open: %v", err)
	}
	if same, err := loadResolved(filepath.Join(dir, "config.yml")); err != nil || !reflect.DeepEqual(same.Kafka, res.Kafka) {
		t.Fatalf("the same stores resolve as a different configuration (%v)", err)
	}
	// A rotated keystore of another CA makes the configuration differ.
	other, err := testcerts.Generate(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b, err := other.JKSKeystore(storePW, keyPW)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "client.jks"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	again, err := loadResolved(filepath.Join(dir, "config.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(again.Kafka, res.Kafka) {
		t.Error("a rotated keystore left the resolved material equal")
	}
}

// A team's client.properties with a PKCS12 truststore and a JKS keystore
// (Kafka's default type) and their passwords: the kafka.tls keys, paths
// relative to the properties file, the passwords shown as <secret> in the
// effective configuration, and a real mTLS handshake with the material.
// The YAML's own CA file wins over the file's truststore, its password
// over the file's.
func TestPropertiesFileKeystores(t *testing.T) {
	dir := t.TempDir()
	certsDir := filepath.Join(dir, "certs")
	if err := os.Mkdir(certsDir, 0o700); err != nil {
		t.Fatal(err)
	}
	certs, err := testcerts.Generate(certsDir)
	if err != nil {
		t.Fatal(err)
	}
	stores(t, certsDir, certs)
	props := func(truststorePW string) string {
		return `bootstrap.servers=127.0.0.1:9093
security.protocol=SSL
ssl.truststore.type=PKCS12
ssl.truststore.location=certs/trust.p12
ssl.truststore.password=` + truststorePW + `
ssl.keystore.location=certs/client.jks
ssl.keystore.password=` + storePW + `
ssl.key.password=` + keyPW + `
`
	}
	load := func(yamlText, propsText string) (*Resolved, error) {
		writeFile(t, filepath.Join(dir, "client.properties"), propsText)
		file := filepath.Join(dir, "config.yml")
		writeFile(t, file, yamlText)
		return loadResolved(file)
	}
	res, err := load("kafka: {properties_file: client.properties}\n", props(storePW))
	if err != nil {
		t.Fatal(err)
	}
	tl := res.Config.Kafka.TLS
	if !tl.Enabled || tl.TruststoreFile != filepath.Join(certsDir, "trust.p12") || tl.TruststoreType != "PKCS12" ||
		tl.KeystoreFile != filepath.Join(certsDir, "client.jks") || tl.KeystoreType != "JKS" ||
		tl.TruststorePassword.Reveal() != storePW || tl.KeystorePassword.Reveal() != storePW || tl.KeyPassword.Reveal() != keyPW || tl.CAFile != "" {
		t.Errorf("kafka.tls = %+v", tl)
	}
	tlsc, err := res.Kafka.TLSConfig()
	if err != nil {
		t.Fatal(err)
	}
	if err := handshake(t, tlsc, certs); err != nil {
		t.Errorf("the handshake failed: %v", err)
	}
	out, err := res.Config.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"truststore_password: <secret>", "keystore_password: <secret>", "key_password: <secret>"} {
		if !strings.Contains(string(out), k) {
			t.Errorf("the effective configuration lacks %q:\n%s", k, out)
		}
	}
	if strings.Contains(string(out), storePW) || strings.Contains(string(out), keyPW) {
		t.Errorf("the effective configuration shows a password:\n%s", out)
	}

	// The YAML's ca_file replaces the file's truststore (and its wrong
	// password); the keystore is still the file's.
	res, err = load("kafka:\n  properties_file: client.properties\n  tls: {ca_file: certs/ca.pem}\n", props("wrong-pw"))
	if err != nil {
		t.Fatal(err)
	}
	if tl := res.Config.Kafka.TLS; tl.TruststoreFile != "" || tl.TruststorePassword != "" || tl.KeystoreFile == "" || tl.CAFile != "certs/ca.pem" {
		t.Errorf("kafka.tls with the YAML's ca_file = %+v", tl)
	}
	// The YAML's password wins over the file's wrong one.
	if _, err := load("kafka:\n  properties_file: client.properties\n  tls: {truststore_password: "+storePW+"}\n", props("wrong-pw")); err != nil {
		t.Errorf("the YAML's truststore password: %v", err)
	}
	// The file's wrong password alone fails, naming the store.
	_, err = load("kafka: {properties_file: client.properties}\n", props("wrong-pw"))
	if want := `kafka.tls.truststore_file = "` + filepath.Join(certsDir, "trust.p12") + `": does not open with kafka.tls.truststore_password`; err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "wrong-pw") {
		t.Errorf("a wrong ssl.truststore.password: %v, want …%s…", err, want)
	}
}
