package main

import (
	"bytes"
	"strings"
	"testing"
)

// help renders --help of args in-process (kingpin would exit).
func help(t *testing.T, args ...string) string {
	t.Helper()
	var out bytes.Buffer
	app := newApp(&flags{}, &out)
	app.Terminate(func(int) {})
	_, _ = app.Parse(append(args, "--help"))
	if out.Len() == 0 {
		t.Fatalf("%v --help printed nothing", args)
	}
	return out.String()
}

// Each command's help lists the flags it accepts and no other: bench does
// not offer the daemon's --config.* and --probe.*, which it would refuse.
func TestHelpPerCommand(t *testing.T) {
	bench := help(t, "bench")
	for _, want := range []string{"--bench.file", "drain_timeout", "consume_only", "--kafka.brokers", "--web.listen-address", "--log.level"} {
		if !strings.Contains(bench, want) {
			t.Errorf("bench --help lacks %s:\n%s", want, bench)
		}
	}
	for _, not := range []string{"--config.file", "--config.check", "--probe."} {
		if strings.Contains(bench, not) {
			t.Errorf("bench --help offers the daemon's %s:\n%s", not, bench)
		}
	}
	top := help(t)
	for _, want := range []string{"--config.file", "--probe.rate", "--kafka.brokers", "web.enable-pprof", "bench"} {
		if !strings.Contains(top, want) {
			t.Errorf("--help lacks %s:\n%s", want, top)
		}
	}
	if run := help(t, "run"); strings.Contains(run, "--bench.") {
		t.Errorf("run --help offers bench flags:\n%s", run)
	}
}
