package secret

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// dirReader reads files relative to dir and a fixed environment.
type dirReader struct {
	dir string
	env map[string]string
}

func (r dirReader) ReadFile(key, path string) ([]byte, string, error) {
	p := filepath.Join(r.dir, path)
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, "", fieldError(key, path, "cannot read")
	}
	return b, p, nil
}

func (r dirReader) LookupEnv(name string) (string, bool) {
	v, ok := r.env[name]
	return v, ok
}

// Exactly one key of a required secret, at most one of another; the error
// names the second key set and the first.
func TestValidate(t *testing.T) {
	for _, c := range []struct {
		src  Source
		want string // "" for none
	}{
		{Source{Key: "password", Required: true}, "password: set exactly one of password, password_file, password_env"},
		{Source{Key: "password", Inline: "x", Required: true}, ""},
		{Source{Key: "password", Env: "E", Required: true}, ""},
		{Source{Key: "password", Inline: "x", File: "f", Required: true}, "password_file: set exactly one of password, password_file, password_env (also set: password)"},
		{Source{Key: "password", File: "f", Env: "E", Required: true}, "password_env: set exactly one of password, password_file, password_env (also set: password_file)"},
		{Source{Key: "key_password"}, ""},
		{Source{Key: "key_password", File: "f"}, ""},
		{Source{Key: "key_password", Inline: "x", Env: "E"}, "key_password_env: set at most one of key_password, key_password_file, key_password_env (also set: key_password)"},
	} {
		err := c.src.Validate()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%+v: %v", c.src, err)
		case c.want != "" && (err == nil || err.Error() != c.want):
			t.Errorf("%+v: %v, want %s", c.src, err, c.want)
		}
	}
}

// Given is the first key set; the error's value is the key's as written.
func TestGiven(t *testing.T) {
	if _, _, ok := (Source{Key: "password"}).Given(); ok || (Source{Key: "password"}).Set() {
		t.Error("an empty source is set")
	}
	key, val, ok := Source{Key: "password", File: "f", Env: "E"}.Given()
	if key != "password_file" || val != "f" || !ok {
		t.Errorf("Given = %s %v %v, want password_file f", key, val, ok)
	}
	err := Source{Key: "password", File: "f", Env: "E"}.Validate()
	if e, ok := errors.AsType[*Error](err); !ok || e.Key != "password_env" || e.Value != "E" {
		t.Errorf("Validate = %#v, want password_env = E", err)
	}
}

// Resolve reads the one source: inline, the file (its newline dropped, its
// absolute path kept) or the variable; an empty file or variable is an
// error, as is an unreadable file (the Reader's).
func TestResolve(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{"pw": "from-file\n", "empty": "\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	r := dirReader{dir: dir, env: map[string]string{"PW": "from-env", "EMPTY": ""}}
	for _, c := range []struct {
		src  Source
		want Resolved
		err  string
	}{
		{Source{Key: "password", Inline: "inline"}, Resolved{Value: "inline"}, ""},
		{Source{Key: "password", File: "pw"}, Resolved{Value: "from-file", Path: filepath.Join(dir, "pw")}, ""},
		{Source{Key: "password", Env: "PW"}, Resolved{Value: "from-env"}, ""},
		{Source{Key: "password"}, Resolved{}, ""},
		{Source{Key: "password", File: "empty"}, Resolved{}, "password_file: the file is empty"},
		{Source{Key: "password", File: "missing"}, Resolved{}, "password_file: cannot read"},
		{Source{Key: "password", Env: "EMPTY"}, Resolved{}, "password_env: environment variable is not set or empty"},
		{Source{Key: "password", Env: "UNSET"}, Resolved{}, "password_env: environment variable is not set or empty"},
	} {
		got, err := c.src.Resolve(r)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%+v: %v, want %s", c.src, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want || got.Set() != (c.want.Value != "") {
			t.Errorf("%+v: %#v, %v; want %#v", c.src, got, err, c.want)
		}
	}
}

// Load is a changed file's secret: without its trailing newline, an error
// when nothing else is left.
func TestLoad(t *testing.T) {
	if s, err := Load([]byte("new-pw\r\n")); err != nil || s.Reveal() != "new-pw" {
		t.Errorf("Load = %q, %v", s.Reveal(), err)
	}
	if _, err := Load([]byte("\n")); !errors.Is(err, ErrEmptyFile) {
		t.Errorf("Load of an empty file: %v, want %v", err, ErrEmptyFile)
	}
}
