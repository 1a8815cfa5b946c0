package config

import (
	"os"
	"testing"
)

// The resolved transactional.id carries the probe's and the host's name:
// two probes with one configured id, or two exporters with one file, get
// ids of their own; the configuration as validated keeps the user's id.
func TestResolveSuffixesTransactionalID(t *testing.T) {
	cfg, err := Parse([]byte(`
probes:
  - name: a
    producer: {transactional.id: bench-tx}
  - name: b
    producer: {transactional.id: bench-tx}
  - name: plain
`))
	if err != nil {
		t.Fatal(err)
	}
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	r, err := Resolve(cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"bench-tx-a-" + host, "bench-tx-b-" + host, ""} {
		if got := r.Probes[i].Probe.Producer.TransactionalID; got != want {
			t.Errorf("probe %s: transactional.id = %q, want %q", r.Probes[i].Probe.Name, got, want)
		}
		if got := r.Config.Probes[i].Producer.TransactionalID; got != want {
			t.Errorf("probe %s: Config.Probes: transactional.id = %q, want %q", r.Probes[i].Probe.Name, got, want)
		}
	}
	if got := cfg.Probes[0].Producer.TransactionalID; got != "bench-tx" {
		t.Errorf("the validated configuration changed: transactional.id = %q", got)
	}
}
