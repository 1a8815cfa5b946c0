package main

import (
	"io"
	"slices"
	"strings"
	"testing"
)

// bench's subcommands parse as the spellings of the docs do: a plain
// bench is bench run, the bench flags go before or after the subcommand,
// report takes its FILE.json and merge its FILEs; a word that names no
// subcommand is refused as the positional action was.
func TestBenchSubcommands(t *testing.T) {
	for _, c := range []struct {
		args    []string
		command string
		check   func(*benchFlags) bool
	}{
		{[]string{"bench", "--bench.num-records", "10"}, "bench run", func(bf *benchFlags) bool { return bf.numRecords == 10 && bf.setNum }},
		{[]string{"bench", "run", "--bench.num-records", "10"}, "bench run", func(bf *benchFlags) bool { return bf.numRecords == 10 && bf.setNum }},
		{[]string{"bench", "report", "x.json", "--output", "o.html"}, "bench report", func(bf *benchFlags) bool { return bf.resultFile == "x.json" && bf.output == "o.html" }},
		{[]string{"bench", "--output", "o.html", "report", "x.json"}, "bench report", func(bf *benchFlags) bool { return bf.resultFile == "x.json" && bf.output == "o.html" }},
		{[]string{"bench", "merge", "a.json", "b.json", "--workers", "3"}, "bench merge", func(bf *benchFlags) bool {
			return slices.Equal(bf.sweep.files, []string{"a.json", "b.json"}) && bf.sweep.workers == 3
		}},
		{[]string{"bench", "merge", "--run=r", "--timeout=2h"}, "bench merge", func(bf *benchFlags) bool { return len(bf.sweep.files) == 0 && bf.sweep.run == "r" }},
	} {
		f, err := parseFlags(c.args, io.Discard)
		if err != nil {
			t.Errorf("%q: %v", c.args, err)
			continue
		}
		if f.command != c.command || !c.check(f.bench) {
			t.Errorf("%q: command %q, flags %+v; want %q and the values given", c.args, f.command, *f.bench, c.command)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "reprot", "x.json"}, `bench has no command "reprot": give run (the default), report or merge`},
		{[]string{"bench", "run", "merge"}, "bench run takes no arguments: merge is a command of its own (bench merge)"},
		{[]string{"bench", "report", "a.json", "b.json"}, "unexpected b.json"},
	} {
		if _, err := parseFlags(c.args, io.Discard); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.args, err, c.want)
		}
	}
}
