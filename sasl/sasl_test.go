package sasl

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/kafka-bench/kafka_bench_exporter/internal/testcerts"
	"github.com/kafka-bench/kafka_bench_exporter/redact"
	"github.com/kafka-bench/kafka_bench_exporter/secret"
)

// dirReader reads files relative to dir and the environment, as config's
// resolve step does.
type dirReader struct{ dir string }

func (r dirReader) ReadFile(key, path string) ([]byte, string, error) {
	p := filepath.Join(r.dir, path)
	b, err := os.ReadFile(p)
	if err != nil {
		if pe, ok := errors.AsType[*fs.PathError](err); ok {
			err = pe.Err
		}
		return nil, "", fieldError(key, path, fmt.Sprintf("cannot read: %v", err))
	}
	return b, p, nil
}

func (dirReader) LookupEnv(name string) (string, bool) { return os.LookupEnv(name) }

// testRuntime reads watched files at every look, as kclient's watched
// files do, and counts token fetches.
type testRuntime struct {
	mu              sync.Mutex
	fetched, failed atomic.Int64
}

func (rt *testRuntime) Watch(_ string, paths []string, initial any, load func([][]byte) (any, error)) (func() any, error) {
	current := initial
	return func() any {
		rt.mu.Lock()
		defer rt.mu.Unlock()
		var contents [][]byte
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				return current
			}
			contents = append(contents, b)
		}
		if v, err := load(contents); err == nil {
			current = v
		}
		return current
	}, nil
}

func (rt *testRuntime) TokenFetched(ok bool) {
	if ok {
		rt.fetched.Add(1)
	} else {
		rt.failed.Add(1)
	}
}

func (*testRuntime) Logger() *slog.Logger { return slog.New(slog.DiscardHandler) }

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// resolve validates and resolves c with files relative to dir.
func resolve(t *testing.T, c Config, dir string) Material {
	t.Helper()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	m, err := Resolve(c, dirReader{dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// loadSASL decodes yml as kafka.sasl, validates it and resolves it with files
// relative to dir, as config's resolve step does; a problem is in the form
// config shows it: kafka.sasl.<key> = <value>: <problem>, on one line.
func loadSASL(dir, yml string) (Config, Material, error) {
	var c Config
	if err := yaml.Unmarshal([]byte(yml), &c); err != nil {
		return c, nil, err
	}
	err := c.Validate()
	var m Material
	if err == nil {
		m, err = Resolve(c, dirReader{dir: dir})
	}
	if e, ok := errors.AsType[*Error](err); ok {
		err = fmt.Errorf("kafka.sasl.%s = %q: %s", e.Key, fmt.Sprint(e.Value), e.Problem)
	}
	return c, m, err
}

// shows reports whether a printing of c (fmt's verbs, the YAML the
// effective configuration prints) shows s.
func shows(t *testing.T, s string, c Config) bool {
	t.Helper()
	out, err := yaml.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains(string(out)+fmt.Sprintf("%v %+v %#v", c, c, c), s)
}

// The password comes from its one source: inline, a file (its trailing
// newline dropped, its path kept for reloading) or the environment.
func TestPasswordSources(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "pw"), "from-file-pw\n")
	t.Setenv("KAFKA_BENCH_TEST_PW", "from-env-pw")
	for _, c := range []struct {
		cfg  Config
		want secret.Resolved
	}{
		{Config{Password: "inline-pw"}, secret.Resolved{Value: "inline-pw"}},
		{Config{PasswordFile: "pw"}, secret.Resolved{Value: "from-file-pw", Path: filepath.Join(dir, "pw")}},
		{Config{PasswordEnv: "KAFKA_BENCH_TEST_PW"}, secret.Resolved{Value: "from-env-pw"}},
	} {
		c.cfg.Mechanism, c.cfg.Username = ScramSHA512, "alice"
		m, ok := resolve(t, c.cfg, dir).(scramMaterial)
		if !ok || !m.sha512 || m.user != "alice" || m.password != c.want {
			t.Errorf("%+v: material %#v, want password %#v", c.cfg, m, c.want)
		}
	}
}

// OAUTHBEARER reads the client secret file or the token file.
func TestOAuthMaterial(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "client-secret"), "s3cr3t-client\n")
	write(t, filepath.Join(dir, "token"), "eyJ.token.sig\n")
	m := resolve(t, Config{Mechanism: OAuthBearer, OAuth: OAuth{TokenEndpoint: "https://idp.example/token", ClientID: "bench", ClientSecretFile: "client-secret"}}, dir).(oauthMaterial)
	if m.secret.Reveal() != "s3cr3t-client" || m.secretPath != filepath.Join(dir, "client-secret") || m.tokenPath != "" {
		t.Errorf("token endpoint config: secret path %q token path %q", m.secretPath, m.tokenPath)
	}
	m = resolve(t, Config{Mechanism: OAuthBearer, OAuth: OAuth{TokenFile: "token"}}, dir).(oauthMaterial)
	if m.token.Reveal() != "eyJ.token.sig" || m.tokenPath != filepath.Join(dir, "token") {
		t.Errorf("token file config: path %q", m.tokenPath)
	}
}

// GSSAPI: the realm from krb5.conf or the settings, the service name's
// default, the keytab or the password.
func TestKerberosMaterial(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "krb5.conf"), "[libdefaults]\n default_realm = EXAMPLE.COM\n")
	b := testcerts.Keytab(t, "bench", "EXAMPLE.COM", "pw")
	write(t, filepath.Join(dir, "bench.keytab"), string(b))
	write(t, filepath.Join(dir, "pw"), "krb-pw-123\n")
	m := resolve(t, Config{Mechanism: GSSAPI, Username: "bench", Kerberos: Kerberos{KeytabFile: "bench.keytab", ConfigFile: "krb5.conf"}}, dir).(gssapiMaterial)
	if m.realm != "EXAMPLE.COM" || m.service != "kafka" || m.keytabPath != filepath.Join(dir, "bench.keytab") || m.confPath != filepath.Join(dir, "krb5.conf") {
		t.Errorf("realm %q service %q keytab %q conf %q", m.realm, m.service, m.keytabPath, m.confPath)
	}
	m = resolve(t, Config{Mechanism: GSSAPI, Username: "bench", PasswordFile: "pw", Kerberos: Kerberos{Realm: "OTHER.ORG", ServiceName: "kafka-svc", ConfigFile: "krb5.conf"}}, dir).(gssapiMaterial)
	if m.realm != "OTHER.ORG" || m.service != "kafka-svc" || m.password.Value != redact.Secret("krb-pw-123") {
		t.Errorf("password config: realm %q service %q", m.realm, m.service)
	}
}

// Every mechanism is named once, and the kinds of their files too.
func TestRegistry(t *testing.T) {
	if got, want := fmt.Sprint(Names()), "[PLAIN SCRAM-SHA-256 SCRAM-SHA-512 OAUTHBEARER GSSAPI AWS_MSK_IAM]"; got != want {
		t.Errorf("Names = %s, want %s", got, want)
	}
	if got, want := fmt.Sprint(Kinds()), "[sasl_password oauth_token oauth_client_secret kerberos_keytab kerberos_conf]"; got != want {
		t.Errorf("Kinds = %s, want %s", got, want)
	}
}
