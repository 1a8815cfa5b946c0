// Package secret is a secret of the configuration taken from one of three
// keys: inline (password), from a file (password_file) or from an
// environment variable (password_env), as kafka.sasl.password and
// kafka.tls's store passwords are. Its checks (Source.Validate) read
// nothing; the resolve step reads the file or the variable (Source.Resolve)
// through a Reader, and a secret from a file keeps the file's path, so
// that it is read again (Load) when the file changes.
//
// It is below config and sasl, which both use it, and depends on no
// package of the project but the redaction rule.
package secret

import (
	"errors"

	"github.com/kafka-bench/kafka_bench_exporter/redact"
)

// Source is one secret as the settings spell it: the value of Key inline,
// the file Key_file names or the environment variable Key_env names.
type Source struct {
	// Key is the inline key (kafka.sasl's password, kafka.tls's
	// truststore_password), relative to its block; File and Env are
	// Key_file's and Key_env's values.
	Key    string
	Inline redact.Secret
	File   string
	Env    string
	// Required is a secret that must be set: exactly one of the keys;
	// otherwise at most one.
	Required bool
}

// Error is a problem with one key of a Source: Key is the key (Key,
// Key_file or Key_env) relative to its block, Value its value as written
// (a redact.Secret for the inline key). The caller shows it in the one
// shape of its configuration errors, named for the block.
type Error struct {
	Key     string
	Value   any
	Problem string
}

func (e *Error) Error() string { return e.Key + ": " + e.Problem }

func fieldError(key string, value any, problem string) error {
	return &Error{Key: key, Value: value, Problem: problem}
}

// setting is one key of a Source.
type setting struct {
	key string
	set bool
	val any
}

func (s Source) settings() []setting {
	return []setting{
		{s.Key, s.Inline != "", s.Inline},
		{s.Key + "_file", s.File != "", s.File},
		{s.Key + "_env", s.Env != "", s.Env},
	}
}

// Set reports whether any of the keys is set.
func (s Source) Set() bool {
	_, _, ok := s.Given()
	return ok
}

// Given is the key set (the first, if more are) and its value; ok is false
// when none is.
func (s Source) Given() (key string, value any, ok bool) {
	for _, f := range s.settings() {
		if f.set {
			return f.key, f.val, true
		}
	}
	return "", nil, false
}

// Validate checks, reading nothing, that one key is set (at most one when
// the secret is not Required).
func (s Source) Validate() error {
	var set []setting
	for _, f := range s.settings() {
		if f.set {
			set = append(set, f)
		}
	}
	rule := "set at most one of "
	if s.Required {
		rule = "set exactly one of "
	}
	rule += s.Key + ", " + s.Key + "_file, " + s.Key + "_env"
	switch {
	case len(set) == 0 && s.Required:
		return fieldError(s.Key, s.Inline, rule)
	case len(set) > 1:
		return fieldError(set[1].key, set[1].val, rule+" (also set: "+set[0].key+")")
	}
	return nil
}

// Reader reads what the settings name, for the resolve step: a file
// (relative paths relative to the configuration file's directory) and an
// environment variable. Its errors name the key and the value already.
type Reader interface {
	// ReadFile returns the content of the file that key (relative to
	// the block) names and its path made absolute.
	ReadFile(key, path string) (content []byte, abs string, err error)
	// LookupEnv is os.LookupEnv.
	LookupEnv(name string) (string, bool)
}

// Resolved is a secret as the resolve step read it: its value and, from
// Key_file, the file's absolute path, read again when it changes. It is a
// value: two resolves of an unchanged source are equal (==). The zero
// Resolved is a secret not set.
type Resolved struct {
	Value redact.Secret
	Path  string
}

// Set reports whether the secret was set (a set secret is never empty).
func (r Resolved) Set() bool { return r.Value != "" }

// Resolve reads the validated s from its source; the zero Resolved when
// none is set.
func (s Source) Resolve(r Reader) (Resolved, error) {
	switch {
	case s.Inline != "":
		return Resolved{Value: s.Inline}, nil
	case s.File != "":
		v, abs, err := ReadFile(r, s.Key+"_file", s.File)
		if err != nil {
			return Resolved{}, err
		}
		return Resolved{Value: v, Path: abs}, nil
	case s.Env != "":
		v, ok := r.LookupEnv(s.Env)
		if !ok || v == "" {
			return Resolved{}, fieldError(s.Key+"_env", s.Env, "environment variable is not set or empty")
		}
		return Resolved{Value: redact.Secret(v)}, nil
	}
	return Resolved{}, nil
}

// ReadFile reads a file holding one secret (Load) that key names, and
// returns its absolute path too.
func ReadFile(r Reader, key, path string) (redact.Secret, string, error) {
	b, abs, err := r.ReadFile(key, path)
	if err != nil {
		return "", "", err
	}
	s, err := Load(b)
	if err != nil {
		return "", "", fieldError(key, path, err.Error())
	}
	return s, abs, nil
}

// ErrEmptyFile is a secret file with nothing in it but newlines.
var ErrEmptyFile = errors.New("the file is empty")

// Load is the secret a one-line secret file holds (redact.SecretLine):
// read by the resolve step, and again when the file changes.
func Load(b []byte) (redact.Secret, error) {
	s := redact.SecretLine(b)
	if s == "" {
		return "", ErrEmptyFile
	}
	return s, nil
}
