package config

import (
	"strings"
	"testing"
)

// Every key of the file has a description: docs/reference/config.md is
// generated from them.
func TestKeyDocsCoverEveryKey(t *testing.T) {
	refs, err := Reference()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range refs {
		if !r.Documented {
			t.Errorf("configuration key %s has no doc tags (default, values, doc; see config/keydocs.go): add what it accepts and does", r.Path)
		}
	}
}

// Defaults are what --config.check prints, with the rules of the default tags where
// the printout would mislead; a set secret shows as <secret>.
func TestReferenceDefaults(t *testing.T) {
	refs, err := Reference()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]KeyRef{}
	for _, r := range refs {
		got[r.Path] = r
	}
	for path, want := range map[string]string{
		"kafka.client_id":                      "`" + DefaultClientID + "`",
		"probes[].producer.acks":               "`all`",
		"probes[].loss_grace_period":           "`30s`",
		"probes[].payload.delimiter":           "`\"\\n\"`",
		"probes[].create_topic.configs":        "`{}`",
		"kafka.brokers":                        "`[]`",
		"probes[].topic":                       "`" + DefaultTopicPrefix + "<name>`",
		"probes[].producer.enable.idempotence": "true with acks=all and retries > 0, else false",
		"kafka.sasl.password":                  "",
	} {
		if d := got[path].Default; d != want {
			t.Errorf("default of %s = %q, want %q", path, d, want)
		}
	}
	if r := got["kafka.sasl.password"]; r.TypeName() != "secret" {
		t.Errorf("kafka.sasl.password is a %q, want a secret", r.TypeName())
	}
	if r := got["probes[].capacity"]; r.TypeName() != "block" || !strings.Contains(r.Default, "off") {
		t.Errorf("probes[].capacity: %q, default %q: want an optional block, off by default", r.TypeName(), r.Default)
	}
}
