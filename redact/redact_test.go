package redact

import (
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://u:hunter2@127.0.0.1:9100/metrics":        "http://u:<secret>@127.0.0.1:9100/metrics",
		"https://tok3n@kafka1:9100/metrics":              "https://<secret>@kafka1:9100/metrics",
		"http://u:p@ss:w@rd@host/metrics":                "http://u:<secret>@host/metrics",
		"http://u:hunter2@[::1/metrics":                  "http://u:<secret>@[::1/metrics", // does not parse
		"http://kafka1:9100/metrics?token=abc&x=1":       "http://kafka1:9100/metrics?token=<secret>&x=1",
		"http://kafka1:9100/metrics?X-Api-Key=abc":       "http://kafka1:9100/metrics?X-Api-Key=<secret>",
		"http://kafka1:9100/metrics?collect[]=cpu":       "http://kafka1:9100/metrics?collect[]=cpu",
		"http://kafka1:9100/metrics":                     "http://kafka1:9100/metrics",
		"":                                               "",
		"kafka1:9092":                                    "kafka1:9092",
		"http://u:hunter2@h/m?password=hunter2#frag":     "http://u:<secret>@h/m?password=<secret>#frag",
		"http://u%40corp:hunter2%2F@127.0.0.1:1/metrics": "http://u%40corp:<secret>@127.0.0.1:1/metrics",
		"bench:hunter2@idp.example/token":                "bench:<secret>@idp.example/token",   // no scheme
		"http://idp.example:port/t?code=hunter2&x=1":     "http://idp.example:port/t?<secret>", // does not parse: the whole query
		"http://h/m?password=<secret>&x=1":               "http://h/m?password=<secret>&x=1",   // already redacted
	} {
		if got := URL(in); got != want {
			t.Errorf("URL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRedactText(t *testing.T) {
	for in, want := range map[string]string{
		`Get "http://u:hunter2@127.0.0.1:1/metrics": dial tcp 127.0.0.1:1: connect: connection refused`: `Get "http://u:<secret>@127.0.0.1:1/metrics": dial tcp 127.0.0.1:1: connect: connection refused`,
		`{"url":"http://u:hunter2@h:1/m","error":"GET https://t0k@h/m?a=1\u0026token=x: 401"}`:          `{"url":"http://u:<secret>@h:1/m","error":"GET https://<secret>@h/m?a=1\u0026token=<secret> 401"}`,
		"two: http://a:b@x/ and ftp://c:d@y/z":                                                          "two: http://a:<secret>@x/ and ftp://c:<secret>@y/z",
		"mail me@example.com at http://host/x":                                                          "mail me@example.com at http://host/x",
		"no url here":                                                                                   "no url here",
	} {
		if got := Text(in); got != want {
			t.Errorf("Text(%q)\n = %q\nwant %q", in, got, want)
		}
	}
}

// TestRedactedError: the error of an HTTP request to an unreachable URL with
// userinfo keeps its cause but not the credentials: net/http hides a
// password as *** but quotes a user alone (often a token) as it is.
func TestRedactedError(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil { // nobody listens: connection refused
		t.Fatal(err)
	}
	_, err = http.Get("http://hunter2@" + addr + "/metrics")
	if err == nil {
		t.Fatal("GET of a closed port succeeded")
	}
	if !strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("the unredacted error does not show the password (nothing to test): %v", err)
	}
	red := Error(err)
	var ue *url.Error
	if msg := red.Error(); strings.Contains(msg, "hunter2") || !strings.Contains(msg, "http://<secret>@"+addr) || !errors.As(red, &ue) {
		t.Errorf("redacted: %q (url.Error reachable: %v)", msg, errors.As(red, &ue))
	}
	// url.Parse quotes the URL whole, password included.
	//nolint:staticcheck // SA1007: the URL is invalid on purpose, for its parse error.
	if _, err := url.Parse("http://u:hunter2@[::1/metrics"); err == nil || !strings.Contains(err.Error(), "hunter2") {
		t.Errorf("url.Parse error %v, want one quoting the password", err)
	} else if msg := Error(err).Error(); strings.Contains(msg, "hunter2") || !strings.Contains(msg, "u:<secret>@") {
		t.Errorf("redacted parse error: %q", msg)
	}
	if Error(nil) != nil {
		t.Error("Error(nil) != nil")
	}
}

func TestSensitiveKey(t *testing.T) {
	for key, want := range map[string]bool{
		"password": true, "kafka.sasl.password": true, "ssl.keystore.password": true, "sasl.jaas.config": true,
		"client_secret": true, "ssl.keystore.key": true, "delegation.token.master.key": true, "ssl.truststore.certificates": true,
		"password_file": false, "password_env": false, "client_secret_file": false, "username": false, "url": false,
		"linger.ms": false, "cleanup.policy": false, "record_size": false, "ca_file": false,
		"token": true, "session_token": true, "secret_key": true, "ssl.keystore.certificate.chain": true, "password.encoder.secret": true,
		"delegation.token.expiry.time.ms": false, "sasl.oauthbearer.token.endpoint.url": false, "token_endpoint_url": false,
		"key_file": false, "ssl.keystore.type": false, "jaas": false,
		// A key outside Kafka's client table (a broker's, a bench file's)
		// named like the client's PASSWORD one.
		"sasl.oauthbearer.assertion.private.key.passphrase": true, "broker.ssl.key.passphrase": true, "passphrase_file": false,
	} {
		if got := SensitiveKey(key); got != want {
			t.Errorf("SensitiveKey(%q) = %v, want %v", key, got, want)
		}
	}
}

func TestRedactYAML(t *testing.T) {
	in := `# the bench of the week
kafka:
  brokers: [kafka1:9092]
  sasl: {mechanism: PLAIN, username: bench, password: hunter2}   # inline
  other:
    password: "hun\"ter2"
    password_file: /etc/kafka/password
    token: 'hunter2''s'
    secret: |
      hunter2
      hunter2 again
    api_key: &pw hunter2x
    plain: *pw
num_records: 1000 # records
defaults:
  broker.listener.name.sasl_ssl.ssl.key.password: hunter2
  topic.cleanup.policy: delete
hosts:
  - {name: kafka1, url: "http://u:hunter2@127.0.0.1:9100/metrics", role: broker}
`
	want := `# the bench of the week
kafka:
  brokers: [kafka1:9092]
  sasl: {mechanism: PLAIN, username: bench, password: <secret>}   # inline
  other:
    password: <secret>
    password_file: /etc/kafka/password
    token: <secret>
    secret: <secret>
    api_key: &pw <secret>
    plain: *pw
num_records: 1000 # records
defaults:
  broker.listener.name.sasl_ssl.ssl.key.password: <secret>
  topic.cleanup.policy: delete
hosts:
  - {name: kafka1, url: "http://u:<secret>@127.0.0.1:9100/metrics", role: broker}
`
	got := YAML(in)
	if got != want {
		t.Errorf("YAML:\n%s\nwant:\n%s", got, want)
	}
	var v any
	if err := yaml.Unmarshal([]byte(got), &v); err != nil {
		t.Errorf("the redacted document does not parse: %v", err)
	}
	bad := "kafka:\n  sasl:\n    password: hunter2\n  brokers: [oops\n"
	if got := YAML(bad); strings.Contains(got, "hunter2") || !strings.Contains(got, "password: <secret>") {
		t.Errorf("YAML of invalid YAML:\n%s", got)
	}
}

// Every document of a YAML stream is redacted, not only the first; a stream
// of which a later document does not parse is redacted line by line, block
// scalars included.
func TestRedactYAMLDocuments(t *testing.T) {
	for name, in := range map[string]string{
		"second document":        "kafka:\n  brokers: [k:9092]\n---\nkafka:\n  sasl: {mechanism: PLAIN, username: u, password: hunter2}\n",
		"third document":         "a: 1\n---\nb: 2\n---\ntoken: hunter2\nurl: http://u:hunter2@h/m\n",
		"second does not parse":  "a: 1\n---\npassword: hunter2\nb: [oops\n",
		"block scalar, no parse": "a: [oops\nsecret: |\n  hunter2\n  hunter2 again\nb: 2\n",
	} {
		got := YAML(in)
		if strings.Contains(got, "hunter2") || !strings.Contains(got, "<secret>") {
			t.Errorf("%s: YAML shows the secret:\n%s", name, got)
		}
	}
	if got, want := YAML("a: 1\n---\npassword: hunter2 # kept\n"), "a: 1\n---\npassword: <secret> # kept\n"; got != want {
		t.Errorf("YAML = %q, want %q", got, want)
	}
}
