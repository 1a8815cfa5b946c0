package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// settings is a subcommand's flags, each defaulting to the environment
// variable of its name in capitals, dashes as underscores (-records-10k:
// RECORDS_10K).
type settings struct {
	fs   *flag.FlagSet
	errs []error
}

func newSettings(name, usage string) *settings {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Usage = func() {
		_, _ = fmt.Fprintf(fs.Output(), "usage: bench-compare %s\n\nFlags (default: the environment variable named in capitals, else the value shown):\n", usage)
		fs.PrintDefaults()
	}
	return &settings{fs: fs}
}

func envName(flagName string) string {
	return strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// env is the environment's value for a flag, or def.
func (s *settings) env(name, def string) string {
	if v, ok := os.LookupEnv(envName(name)); ok && v != "" {
		return v
	}
	return def
}

func (s *settings) String(name, def, usage string) *string {
	return s.fs.String(name, s.env(name, def), usage)
}

func (s *settings) Int(name string, def int, usage string) *int {
	v := s.env(name, strconv.Itoa(def))
	n, err := strconv.Atoi(v)
	if err != nil {
		s.errs = append(s.errs, fmt.Errorf("%s=%q: not an integer", envName(name), v))
	}
	return s.fs.Int(name, n, usage)
}

// List is a space-separated list (SIZES="100 1024").
func (s *settings) List(name, def, usage string) *string {
	return s.String(name, def, usage+" (space-separated)")
}

// parse parses args; an environment variable that is not a number is an
// error too.
func (s *settings) parse(args []string) error {
	if len(s.errs) > 0 {
		return s.errs[0]
	}
	return s.fs.Parse(args)
}

// ints reads a list of integers of flag name.
func ints(name, list string) ([]int, error) {
	var out []int
	for f := range strings.FieldsSeq(list) {
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("-%s (%s): %q is not an integer", name, envName(name), f)
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-%s (%s) is empty", name, envName(name))
	}
	return out, nil
}

// floats reads a list of numbers (rates).
func floats(what string, list []string) ([]float64, error) {
	var out []float64
	for _, f := range list {
		n, err := strconv.ParseFloat(f, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%s: %q is not a number >= 0", what, f)
		}
		out = append(out, n)
	}
	return out, nil
}
