package sasl

import "github.com/kafka-bench/kafka_bench_exporter/redact"

// KindSASLPassword is the `kind` of a password file (kafka.sasl.password_file)
// in the credential reload metrics.
const KindSASLPassword = "sasl_password"

// The username and password of PLAIN, SCRAM and GSSAPI: the password from
// exactly one of password, password_file and password_env.

func (c *Config) hasPassword() bool {
	return c.Password != "" || c.PasswordFile != "" || c.PasswordEnv != ""
}

// passwordSource is the first password key set and its value.
func (c *Config) passwordSource() (string, any) {
	switch {
	case c.Password != "":
		return "password", c.Password
	case c.PasswordFile != "":
		return "password_file", c.PasswordFile
	}
	return "password_env", c.PasswordEnv
}

// noPassword refuses a username and a password for a mechanism that names
// its principal otherwise (why says how).
func (c *Config) noPassword(user, password string) error {
	switch {
	case c.Username != "":
		return fieldError("username", c.Username, "not used with mechanism "+c.Mechanism+": "+user)
	case c.hasPassword():
		key, val := c.passwordSource()
		return fieldError(key, val, "not used with mechanism "+c.Mechanism+": "+password)
	}
	return nil
}

// validatePassword checks the username and that exactly one password
// source is set.
func (c *Config) validatePassword() error {
	if c.Username == "" {
		return fieldError("username", c.Username, "must be set with mechanism "+c.Mechanism)
	}
	var sources []string
	var values []any
	for _, s := range []struct {
		key string
		val any
		set bool
	}{{"password", c.Password, c.Password != ""}, {"password_file", c.PasswordFile, c.PasswordFile != ""}, {"password_env", c.PasswordEnv, c.PasswordEnv != ""}} {
		if s.set {
			sources, values = append(sources, s.key), append(values, s.val)
		}
	}
	switch {
	case len(sources) == 0:
		return fieldError("password", c.Password, "set exactly one of password, password_file, password_env")
	case len(sources) > 1:
		return fieldError(sources[1], values[1], "set exactly one of password, password_file, password_env (also set: "+sources[0]+")")
	}
	return nil
}

// password is a resolved password: its value when resolved and, from
// password_file, the file's absolute path, read again when it changes.
type password struct {
	value redact.Secret
	path  string
}

// resolvePassword reads the password from its source.
func (c *Config) resolvePassword(r Reader) (password, error) {
	switch {
	case c.Password != "":
		return password{value: c.Password}, nil
	case c.PasswordFile != "":
		v, abs, err := readSecret(r, "password_file", c.PasswordFile)
		return password{value: v, path: abs}, err
	}
	v, ok := r.LookupEnv(c.PasswordEnv)
	if !ok || v == "" {
		return password{}, fieldError("password_env", c.PasswordEnv, "environment variable is not set or empty")
	}
	return password{value: redact.Secret(v)}, nil
}

// get is the current password: password_file's content as it is now.
func (p password) get(rt Runtime) (func() string, error) {
	if p.path == "" {
		return p.value.Reveal, nil
	}
	return watch(rt, KindSASLPassword, []string{p.path}, p.value.Reveal(), loadSecret)
}

// readSecret reads a file holding one secret (redact.SecretLine).
func readSecret(r Reader, key, path string) (redact.Secret, string, error) {
	b, abs, err := r.ReadFile(key, path)
	if err != nil {
		return "", "", err
	}
	s := redact.SecretLine(b)
	if s == "" {
		return "", "", fieldError(key, path, "the file is empty")
	}
	return s, abs, nil
}

// loadSecret is a changed one-line secret file without its trailing
// newline.
func loadSecret(b [][]byte) (string, error) {
	s := redact.SecretLine(b[0])
	if s == "" {
		return "", errEmptyFile
	}
	return s.Reveal(), nil
}
