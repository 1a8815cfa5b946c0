package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/kafka-bench/kafka_bench_exporter/httpconf"
	"github.com/kafka-bench/kafka_bench_exporter/internal/fixtures"
	"github.com/kafka-bench/kafka_bench_exporter/kafkaprops"
	"github.com/kafka-bench/kafka_bench_exporter/redact"
	"github.com/kafka-bench/kafka_bench_exporter/sasl"
)

// outputs is v as fmt (%v, %+v, %#v), YAML, JSON and both slog handlers
// (logging args) show it, and the YAML alone.
func outputs(t *testing.T, v any, args ...any) (outs []string, y []byte) {
	t.Helper()
	y, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	j, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("x", args...)
	slog.New(slog.NewTextHandler(&logs, nil)).Info("x", args...)
	return []string{fmt.Sprint(v), fmt.Sprintf("%+v %#v", v, v), string(y), string(j), logs.String()}, y
}

// TestSecretOutputs: a Secret shows as <secret> in fmt, YAML, JSON and both
// slog handlers, also inside a structure.
func TestSecretOutputs(t *testing.T) {
	s := SASL{Mechanism: sasl.PLAIN, Username: "u", Password: "hunter2"}
	outs, _ := outputs(t, s, "sasl", s, "password", s.Password)
	outs = append(outs, fmt.Sprintf("%s %q %v", s.Password, s.Password, s.Password))
	for _, o := range outs {
		if strings.Contains(o, "hunter2") || !strings.Contains(o, "secret") {
			t.Errorf("output shows the secret or no <secret>: %s", o)
		}
	}
	if e, _ := json.Marshal(Secret("")); string(e) != "null" {
		t.Errorf("an unset Secret marshals as %s, want null", e)
	}
	if s.Password.Reveal() != "hunter2" {
		t.Error("Reveal lost the secret")
	}
}

// --config.check's output shows no URL's credentials: a proxy_url may hold
// them, and a token endpoint that does is refused but still not shown.
func TestMarshalRedactsURLs(t *testing.T) {
	var c Config
	c.SetDefaults()
	c.Kafka.SASL = SASL{Mechanism: sasl.OAuthBearer, OAuth: sasl.OAuth{TokenEndpoint: "https://bench:pw-endpoint@idp.example/token?client_secret=pw-query",
		HTTP: httpconf.Client{ProxyURL: "http://proxy-user:pw-proxy@proxy.example:3128"}}}
	out, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"proxy_url: http://proxy-user:<secret>@proxy.example:3128", "token_endpoint: https://bench:<secret>@idp.example/token?client_secret=<secret>"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the output lacks %q", want)
		}
	}
	if strings.Contains(string(out), "pw-") {
		t.Errorf("the output shows a credential:\n%s", out)
	}
}

// The passwords of kafka.tls's Java stores show as <secret> in every
// output too; the keys that name where they are do not hold secrets, the
// password keys do (so FieldError redacts their values).
func TestStorePasswordOutputs(t *testing.T) {
	tl := TLS{Enabled: true, TruststoreFile: "t.p12", TruststorePassword: "trust-pw-1", KeystoreFile: "k.jks", KeystoreType: "JKS",
		KeystorePassword: "store-pw-2", KeyPassword: "key-pw-3", KeyPasswordFile: "key.pw"}
	outs, y := outputs(t, tl, "tls", tl)
	outs = append(outs, fmt.Sprintf("%s %v", tl.KeyPassword, tl.KeystorePassword))
	for _, o := range outs {
		if strings.Contains(o, "-pw-") || !strings.Contains(o, "secret") {
			t.Errorf("output shows a password or no <secret>: %s", o)
		}
	}
	if !strings.Contains(string(y), "truststore_password: <secret>") || !strings.Contains(string(y), "key_password_file: key.pw") {
		t.Errorf("YAML:\n%s", y)
	}
	for _, k := range []string{"truststore_password", "keystore_password", "key_password", "ssl.truststore.password", "ssl.keystore.password", "ssl.key.password"} {
		if !redact.SensitiveKey("kafka.tls." + k) {
			t.Errorf("%s is not a sensitive key", k)
		}
		if redact.SensitiveKey("kafka.tls."+k+"_file") || redact.SensitiveKey("kafka.tls."+k+"_env") {
			t.Errorf("%s_file or _env is a sensitive key", k)
		}
	}
}

// Every URL-valued key of the configuration file (the kafka block, each
// probe's replica kafka block, ...) is shown redacted in its validation
// error, whether or not the URL parses: the redaction is FieldError's, not
// each check's.
func TestURLKeyErrorsRedacted(t *testing.T) {
	keys := URLKeys(reflect.TypeFor[Config]())
	for _, want := range []string{"kafka.sasl.oauth.token_endpoint", "probes[].replica.kafka.sasl.oauth.token_endpoint"} {
		if !slices.Contains(keys, want) {
			t.Errorf("the walk does not find %s among %v", want, keys)
		}
	}
	fixtures.URLKeyErrors(t, keys, map[string]any{}, URLKeyContext, func(f string) error {
		_, err := loadResolved(f)
		return err
	})
}

// URLKeyContext is what each block on the way to a URL key needs for the
// key to be checked.
var URLKeyContext = map[string]map[string]any{
	"kafka":    {"brokers": []any{"127.0.0.1:9092"}},
	"sasl":     {"mechanism": sasl.OAuthBearer},
	"probes[]": {"name": "p1"},
	// Another host than fixtures.URLHost, so that only the key checked
	// can show that one.
	"oauth": {"token_endpoint": "https://token.test/token", "client_id": "bench", "client_secret_file": "secret"},
}

// Every property Kafka types PASSWORD is shown as <secret> in the load
// error it causes, written in a properties file or in a probe's producer:
// or consumer: block, whatever its name says
// (sasl.oauthbearer.assertion.private.key.passphrase names no password),
// and as a number too.
func TestKafkaPasswordsRedacted(t *testing.T) {
	n := 0
	for _, p := range kafkaprops.Properties {
		if p.Type != kafkaprops.TypePassword {
			continue
		}
		n++
		for _, value := range []string{"hunter2-" + p.Name, "90210"} {
			_, err := loadWith(t, "kafka: {properties_file: client.properties}\nprobes: [{name: a}]\n", p.Name+"="+value+"\n")
			if err == nil || strings.Contains(err.Error(), value) {
				t.Errorf("%s in a properties file: %v", p.Name, err)
			}
			_, err = loadWith(t, fmt.Sprintf("probes: [{name: a, %s: {%s: %s}}]\n", p.In.Block(), p.Name, value), "")
			if err == nil || strings.Contains(err.Error(), value) {
				t.Errorf("%s in a %s block: %v", p.Name, p.In.Block(), err)
			}
		}
	}
	if n == 0 {
		t.Fatal("no property of type PASSWORD")
	}
}
