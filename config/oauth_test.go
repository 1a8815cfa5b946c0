package config

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// OAUTHBEARER: both token sources load, their secrets never print, and a
// wrong combination is one line naming the key and the value.
func TestOAuthConfig(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "client-secret"), "s3cr3t-client\n")
	writeFile(t, filepath.Join(dir, "token"), "eyJ.token.sig\n")
	writeFile(t, filepath.Join(dir, "empty"), "\n")
	load := func(oauth string) (*Resolved, error) {
		file := filepath.Join(dir, "config.yml")
		writeFile(t, file, fmt.Sprintf(`
kafka:
  brokers: [127.0.0.1:9093]
  sasl:
    mechanism: OAUTHBEARER
    oauth: %s
`, oauth))
		return loadResolved(file)
	}
	res, err := load(`{token_endpoint: "https://idp.example/token", client_id: bench, client_secret_file: client-secret, scope: kafka, extensions: {logicalCluster: lkc-1}}`)
	if err != nil {
		t.Fatal(err)
	}
	cfg := res.Config
	out, err := cfg.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if printed := string(out) + fmt.Sprintf("%v %+v %#v %v %+v %#v", cfg, cfg.Kafka, cfg.Kafka, res, res.Kafka, res.Kafka); strings.Contains(printed, "s3cr3t") {
		t.Errorf("the client secret is printed:\n%s", printed)
	}
	res, err = load(`{token_file: token}`)
	if err != nil {
		t.Fatal(err)
	}
	cfg = res.Config
	out, _ = cfg.Marshal()
	if printed := string(out) + fmt.Sprintf("%v %+v %#v %v %+v %#v", cfg, cfg.Kafka, cfg.Kafka, res, res.Kafka, res.Kafka); strings.Contains(printed, "eyJ.token") {
		t.Errorf("the token is printed:\n%s", printed)
	}

	for oauth, want := range map[string]string{
		`{}`: `kafka.sasl.oauth.token_endpoint = "": set token_endpoint (client credentials) or token_file with mechanism OAUTHBEARER`,
		`{token_endpoint: "https://idp.example/token", token_file: token}`:                        `kafka.sasl.oauth.token_file = "token": set token_endpoint or token_file, not both`,
		`{token_endpoint: "idp.example/token", client_id: a, client_secret_file: client-secret}`:  `kafka.sasl.oauth.token_endpoint = "idp.example/token": must be an http:// or https:// URL`,
		`{token_endpoint: "https://idp.example/token", client_secret_file: client-secret}`:        `kafka.sasl.oauth.client_id = "": must be set with token_endpoint`,
		`{token_endpoint: "https://idp.example/token", client_id: a}`:                             `kafka.sasl.oauth.client_secret_file = "": must be set with token_endpoint`,
		`{token_endpoint: "https://idp.example/token", client_id: a, client_secret_file: empty}`:  `kafka.sasl.oauth.client_secret_file = "empty": the file is empty`,
		`{token_endpoint: "https://idp.example/token", client_id: a, client_secret_file: absent}`: `kafka.sasl.oauth.client_secret_file = "absent": cannot read: no such file or directory`,
		`{token_file: token, client_id: a}`:                                                       `kafka.sasl.oauth.client_id = "a": only with token_endpoint, not with token_file`,
		`{token_file: token, extensions: {"a-b": x}}`:                                             `kafka.sasl.oauth.extensions = "a-b": extension names must be letters only and not "auth"`,
	} {
		if _, err := load(oauth); err == nil || !strings.HasSuffix(err.Error(), want) || strings.Count(err.Error(), "\n") > 0 {
			t.Errorf("oauth %s:\n got: %v\nwant: …%s", oauth, err, want)
		}
	}
	file := filepath.Join(dir, "other.yml")
	writeFile(t, file, "kafka:\n  brokers: [127.0.0.1:9093]\n  sasl: {mechanism: PLAIN, username: a, password: b, oauth: {token_file: token}}\n")
	if _, err := loadResolved(file); err == nil || !strings.Contains(err.Error(), `kafka.sasl.oauth = "": only with mechanism OAUTHBEARER, not PLAIN`) {
		t.Errorf("oauth with PLAIN: %v", err)
	}
}
