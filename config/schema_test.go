package config

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// The walk is what strict decoding, the bench matrix and the reference
// docs call a key: blocks below pointers, lists of blocks and structs that
// print themselves but have keys (payload) are walked; values that print
// themselves (durations, secrets) and mappings of free names are keys.
func TestWalkKeys(t *testing.T) {
	byPath := map[string]Key{}
	for _, k := range Keys(reflect.TypeFor[Config]()) {
		if _, dup := byPath[k.Path]; dup {
			t.Errorf("key %s walked twice", k.Path)
		}
		byPath[k.Path] = k
	}
	for path, want := range map[string]struct{ block, list bool }{
		"kafka":                                {block: true},
		"kafka.sasl.password":                  {},
		"probes":                               {block: true, list: true},
		"probes[].producer.acks":               {},
		"probes[].payload":                     {block: true},
		"probes[].payload.delimiter":           {},
		"probes[].capacity":                    {block: true},
		"probes[].capacity.latency_slo":        {},
		"probes[].create_topic.configs":        {},
		"probes[].loss_grace_period":           {},
		"probes[].producer.enable.idempotence": {},
		"config_poll_interval":                 {},
	} {
		k, ok := byPath[path]
		if !ok {
			t.Errorf("key %s not walked", path)
			continue
		}
		if k.Block != want.block || k.List != want.list {
			t.Errorf("key %s: block %v list %v, want %v %v", path, k.Block, k.List, want.block, want.list)
		}
	}
	for _, absent := range []string{"kafka.basedir", "kafka.baseDir", "probes[].payload.basedir"} {
		if _, ok := byPath[absent]; ok {
			t.Errorf("unexported field walked as %s", absent)
		}
	}
	if k := byPath["probes[].producer.enable.idempotence"]; k.Type.Kind() != reflect.Bool || k.Field.Type.Kind() != reflect.Pointer {
		t.Errorf("enable.idempotence: type %v, field type %v: want bool behind a pointer", k.Type, k.Field.Type)
	}
	if k := byPath["probes[].capacity.latency_slo"]; !slices.Equal(k.Parts, []string{"probes", "capacity", "latency_slo"}) {
		t.Errorf("parts of %s = %q", k.Path, k.Parts)
	}
	var secrets []string
	for _, k := range byPath {
		if k.Secret() {
			secrets = append(secrets, k.Path)
		}
	}
	if !slices.Contains(secrets, "kafka.sasl.password") || slices.Contains(secrets, "kafka.sasl.password_file") {
		t.Errorf("secret keys %v: want kafka.sasl.password and not its _file sibling", secrets)
	}
}

// Walk goes into a block only when asked: the matrix reads two levels.
func TestWalkStopsWhereAsked(t *testing.T) {
	var got []string
	Walk(reflect.TypeFor[Config](), func(k Key) bool {
		got = append(got, k.Path)
		return false
	})
	if !slices.Contains(got, "kafka") || !slices.Contains(got, "probes") {
		t.Errorf("top level %q lacks kafka or probes", got)
	}
	for _, p := range got {
		if strings.ContainsAny(p, ".[") {
			t.Errorf("walked into a block: %s", p)
		}
	}
}
