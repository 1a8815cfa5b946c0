package config

import (
	"bytes"
	"crypto"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"slices"
	"strings"

	keystore "github.com/pavlo-v-chernykh/keystore-go/v4"
	"software.sslmate.com/src/go-pkcs12"

	"github.com/kafka-bench/kafka_bench_exporter/secret"
)

// Java key stores for kafka.tls: a truststore (truststore_file) in place of
// the PEM CA file, a keystore (keystore_file) in place of the PEM
// certificate and key, as Kafka's ssl.truststore.* and ssl.keystore.*
// name them. PKCS12 is read by go-pkcs12, JKS by keystore-go. Both decode
// into the PEM material of ca_file, cert_file and key_file, so the client
// builds its TLS configuration the same way from either, and a store that
// changes is loaded again like a PEM file (TLSCA, TLSClientCert): the
// store and a password file are watched together.

// The store types.
const (
	storePKCS12 = "PKCS12"
	storeJKS    = "JKS"
)

// storeType is the store type typ names (any case; empty is PKCS12), or
// "" for another.
func storeType(typ string) string {
	switch strings.ToUpper(typ) {
	case "", storePKCS12:
		return storePKCS12
	case storeJKS:
		return storeJKS
	}
	return ""
}

// The passwords of kafka.tls (as truststore_password): each inline, from
// the file key_file names or from the environment variable key_env names,
// at most one of them.

func (t *TLS) truststorePassword() secret.Source {
	return secret.Source{Key: "truststore_password", Inline: t.TruststorePassword, File: t.TruststorePasswordFile, Env: t.TruststorePasswordEnv}
}

func (t *TLS) keystorePassword() secret.Source {
	return secret.Source{Key: "keystore_password", Inline: t.KeystorePassword, File: t.KeystorePasswordFile, Env: t.KeystorePasswordEnv}
}

func (t *TLS) keyPassword() secret.Source {
	return secret.Source{Key: "key_password", Inline: t.KeyPassword, File: t.KeyPasswordFile, Env: t.KeyPasswordEnv}
}

// tlsPassword is a resolved password and, from a _file key, the index of
// the file among its material's paths, read again with the store.
type tlsPassword struct {
	secret.Resolved
	file int    // 0: not from a file (path 0 is the store)
	key  string // the _file key, for errors
}

// get is the password, from contents (the material's files as read) when
// it comes from a file.
func (p tlsPassword) get(contents [][]byte) (string, error) {
	if p.file == 0 {
		return p.Value.Reveal(), nil
	}
	s, err := secret.Load(contents[p.file])
	if err != nil {
		return "", fmt.Errorf("%s: %w", p.key, err)
	}
	return s.Reveal(), nil
}

// tlsFiles is one piece of resolved TLS material, the CA certificates or
// the client certificate and its key: the files it is read from (absolute;
// the store or the PEM files first, then password files) with their
// contents when resolved, and how they decode.
type tlsFiles struct {
	store       string // storePKCS12 or storeJKS; "" for PEM files
	key         string // the configuration key of the store (kafka.tls.truststore or kafka.tls.keystore)
	paths       []string
	contents    [][]byte
	password    tlsPassword
	keyPassword tlsPassword
	alias       string // kafka.tls.keystore_alias: the key entry of a JKS keystore
}

// caPEM is the CA certificates in contents (the files as read), as PEM.
func (f *tlsFiles) caPEM(contents [][]byte) ([]byte, error) {
	if f.store == "" {
		return contents[0], nil
	}
	password, err := f.password.get(contents)
	if err != nil {
		return nil, err
	}
	certs, err := decodeTruststore(f.key, f.store, contents[0], password)
	if err != nil {
		return nil, err
	}
	var out []byte
	for _, c := range certs {
		out = append(out, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})...)
	}
	return out, nil
}

// pool is the CA pool of contents.
func (f *tlsFiles) pool(contents [][]byte) (*x509.CertPool, error) {
	b, err := f.caPEM(contents)
	if err != nil {
		return nil, err
	}
	p := x509.NewCertPool()
	if !p.AppendCertsFromPEM(b) {
		return nil, errors.New("no PEM certificate in the file")
	}
	return p, nil
}

// pairPEM is the client certificate chain and its key in contents, as
// PEM.
func (f *tlsFiles) pairPEM(contents [][]byte) (cert, key []byte, err error) {
	if f.store == "" {
		return contents[0], contents[1], nil
	}
	password, err := f.password.get(contents)
	if err != nil {
		return nil, nil, err
	}
	keyPassword := password
	if f.keyPassword.Set() {
		if keyPassword, err = f.keyPassword.get(contents); err != nil {
			return nil, nil, err
		}
	}
	chain, keyDER, err := decodeKeystore(f.key, f.store, contents[0], password, keyPassword, f.alias)
	if err != nil {
		return nil, nil, err
	}
	for _, c := range chain {
		cert = append(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c})...)
	}
	return cert, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), nil
}

// pair is the client certificate of contents.
func (f *tlsFiles) pair(contents [][]byte) (*tls.Certificate, error) {
	cert, key, err := f.pairPEM(contents)
	if err != nil {
		return nil, err
	}
	pair, err := tls.X509KeyPair(cert, key)
	if err != nil {
		return nil, fmt.Errorf("certificate and key do not load as a pair: %w", err)
	}
	return &pair, nil
}

// errWrongPassword is a store whose integrity check fails: PKCS12's MAC
// and JKS's digest are keyed with the password.
func errWrongPassword(key, password string) error {
	if password == "" {
		return fmt.Errorf("needs %s_password: the store is protected by one (or the file is damaged)", key)
	}
	return fmt.Errorf("does not open with %s_password: a wrong password, or a damaged file", key)
}

var jksMagic, jceksMagic = []byte{0xfe, 0xed, 0xfe, 0xed}, []byte{0xce, 0xce, 0xce, 0xce}

// sniff tells a store of another type than typ (key_type) by its first
// bytes, so that the error says what the file is.
func sniff(key, typ string, data []byte) error {
	switch {
	case bytes.HasPrefix(data, jceksMagic):
		return errors.New("is a JCEKS store, which is not read: convert it (keytool -importkeystore -deststoretype PKCS12)")
	case bytes.HasPrefix(data, jksMagic) && typ != storeJKS:
		return fmt.Errorf("is a JKS store: set %s_type JKS", key)
	case bytes.Contains(data, []byte("-----BEGIN ")):
		if strings.HasSuffix(key, "truststore") {
			return errors.New("is a PEM file, not a store: set it as kafka.tls.ca_file")
		}
		return errors.New("is a PEM file, not a store: set it as kafka.tls.cert_file and key_file")
	case typ == storeJKS && !bytes.HasPrefix(data, jksMagic):
		if len(data) > 0 && data[0] == 0x30 { // an ASN.1 SEQUENCE: a PFX
			return fmt.Errorf("is not a JKS store but a PKCS12 one, it seems: set %s_type PKCS12", key)
		}
		return errors.New("is not a JKS store (no JKS magic number)")
	}
	return nil
}

// decodeTruststore is the trusted certificates of a store (key is
// kafka.tls.truststore).
func decodeTruststore(key, typ string, data []byte, password string) ([]*x509.Certificate, error) {
	if err := sniff(key, typ, data); err != nil {
		return nil, err
	}
	var certs []*x509.Certificate
	switch typ {
	case storePKCS12:
		var err error
		if certs, err = pkcs12.DecodeTrustStore(data, password); err != nil {
			if errors.Is(err, pkcs12.ErrIncorrectPassword) {
				return nil, errWrongPassword(key, password)
			}
			return nil, fmt.Errorf("does not read as a PKCS12 truststore (certificates marked trusted, as keytool -importcert writes them, and no key): %w", err)
		}
	case storeJKS:
		ks, err := loadJKS(key, data, password)
		if err != nil && (password != "" || !errors.Is(err, errJKSDigest)) {
			return nil, err
		}
		// Without a password the entries are read but their integrity is
		// not checked, as in Kafka (and as for a PEM CA file).
		for _, a := range ks.Aliases() {
			e, err := ks.GetTrustedCertificateEntry(a)
			if err != nil {
				continue // a private key entry: a keystore used as a truststore
			}
			c, err := x509.ParseCertificate(e.Certificate.Content)
			if err != nil {
				return nil, fmt.Errorf("entry %q: %w", a, err)
			}
			certs = append(certs, c)
		}
	}
	if len(certs) == 0 {
		return nil, errors.New("holds no trusted certificate entry")
	}
	return certs, nil
}

// decodeKeystore is the certificate chain (leaf first, DER) and the
// PKCS#8 key of a store's one private key entry, or of the JKS entry alias
// (key is kafka.tls.keystore).
func decodeKeystore(key, typ string, data []byte, password, keyPassword, alias string) (chain [][]byte, keyDER []byte, err error) {
	if err := sniff(key, typ, data); err != nil {
		return nil, nil, err
	}
	switch typ {
	case storePKCS12:
		priv, leaf, cas, err := pkcs12.DecodeChain(data, password)
		switch {
		case errors.Is(err, pkcs12.ErrIncorrectPassword):
			return nil, nil, errWrongPassword(key, password)
		case err != nil && strings.Contains(err.Error(), "exactly one key bag"):
			return nil, nil, errors.New("holds more than one private key: keep the one of this client (Kafka's key manager would pick any of them)")
		case err != nil:
			return nil, nil, fmt.Errorf("does not read as a PKCS12 keystore (one private key and its certificate chain): %w", err)
		case keyPassword != password:
			// As keytool: "Different store and key passwords not
			// supported for PKCS12 KeyStores".
			return nil, nil, errors.New("kafka.tls.key_password differs from keystore_password: a PKCS12 keystore's key has the store's password (as keytool and openssl write them); leave key_password out")
		}
		certs := append([]*x509.Certificate{leaf}, cas...)
		// The leaf is the certificate of the key, wherever the file has it.
		for i, c := range certs {
			if pub, ok := priv.(crypto.Signer); ok && publicKeyEqual(pub.Public(), c.PublicKey) {
				certs[0], certs[i] = certs[i], certs[0]
				break
			}
		}
		for _, c := range certs {
			chain = append(chain, c.Raw)
		}
		if keyDER, err = x509.MarshalPKCS8PrivateKey(priv); err != nil {
			return nil, nil, err
		}
		return chain, keyDER, nil
	case storeJKS:
		ks, err := loadJKS(key, data, password)
		if err != nil {
			return nil, nil, err
		}
		var aliases []string
		for _, a := range ks.Aliases() {
			if ks.IsPrivateKeyEntry(a) {
				aliases = append(aliases, a)
			}
		}
		switch {
		case len(aliases) == 0:
			return nil, nil, errors.New("holds no private key entry")
		case alias != "":
			// keytool writes JKS aliases in lower case.
			i := slices.IndexFunc(aliases, func(a string) bool { return strings.EqualFold(a, alias) })
			if i < 0 {
				return nil, nil, fmt.Errorf("has no private key entry %q (kafka.tls.keystore_alias); it holds %s", alias, strings.Join(aliases, ", "))
			}
			aliases = aliases[i : i+1]
		case len(aliases) > 1:
			return nil, nil, fmt.Errorf("holds %d private key entries (%s): set kafka.tls.keystore_alias to the one of this client, or keep only it (Kafka's key manager would pick any of them)", len(aliases), strings.Join(aliases, ", "))
		}
		e, err := ks.GetPrivateKeyEntry(aliases[0], []byte(keyPassword))
		if err != nil {
			return nil, nil, fmt.Errorf("key entry %q does not open with kafka.tls.key_password (default: the keystore's password): %w", aliases[0], err)
		}
		for _, c := range e.CertificateChain {
			chain = append(chain, c.Content)
		}
		if len(chain) == 0 {
			return nil, nil, fmt.Errorf("key entry %q has no certificate", aliases[0])
		}
		return chain, e.PrivateKey, nil
	}
	return nil, nil, fmt.Errorf("type %s is not read", typ)
}

// errJKSDigest is a JKS store whose entries were read but whose digest,
// keyed with the password, does not match.
var errJKSDigest = errors.New("the digest does not match")

// loadJKS reads a JKS store; with a digest that does not match (a wrong
// password) the entries are read all the same, and the error is
// errJKSDigest.
func loadJKS(key string, data []byte, password string) (keystore.KeyStore, error) {
	ks := keystore.New(keystore.WithOrderedAliases())
	if err := ks.Load(bytes.NewReader(data), []byte(password)); err != nil {
		if strings.HasSuffix(err.Error(), "got invalid digest") { // keystore-go's last check, after all entries
			return ks, fmt.Errorf("%w: %w", errWrongPassword(key, password), errJKSDigest)
		}
		return ks, fmt.Errorf("does not read as a JKS store: %w", err)
	}
	return ks, nil
}

func publicKeyEqual(a, b crypto.PublicKey) bool {
	e, ok := a.(interface{ Equal(crypto.PublicKey) bool })
	return ok && e.Equal(b)
}
