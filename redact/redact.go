// Package redact is the redaction rule of every output: secrets, URLs
// with credentials, texts that may hold them and YAML documents.
package redact

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The redaction rule: a secret never leaves the process. A value of type
// Secret prints, logs and marshals (YAML and JSON) as <secret>; a URL shows
// its user but not its password (user:<secret>@host, and <secret>@host for
// a user alone, which is often a token) and no value of a query parameter
// named like a credential; a configuration value shown for its key (every
// value FieldError quotes) goes through Value; text that may hold URLs
// (error messages, saved results) goes through Text; a YAML document
// shown to the user (a bench file in its report) goes through YAML. A
// field holding a secret is of type Secret; its *_file and *_env siblings
// name where the secret is and are shown as they are (the contents never
// are).

// Redacted stands for a secret in every output.
const Redacted = "<secret>"

// Secret is a value that is never shown: it marshals (for
// --config.check) and prints as <secret>, and logs as <secret>.
type Secret string

// SecretLine is the secret a one-line secret file holds: its content
// without the trailing newline of editors and echo.
func SecretLine(b []byte) Secret { return Secret(strings.TrimRight(string(b), "\r\n")) }

// MarshalYAML redacts a set secret; an unset one is null, so that
// --config.check does not show `password: ""` as if an empty one were set.
func (s Secret) MarshalYAML() (any, error) {
	if s == "" {
		return nil, nil
	}
	return Redacted, nil
}

// String redacts, so that %v and %s never print the value.
func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return Redacted
}

// GoString redacts for %#v.
func (s Secret) GoString() string { return s.String() }

// LogValue redacts in slog.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// Reveal returns the secret itself, for the one place that needs it: the
// Kafka client's SASL mechanism.
func (s Secret) Reveal() string { return string(s) }

// MarshalJSON redacts as MarshalYAML does, so that a structure holding a
// Secret may be logged by a JSON handler or served as JSON.
func (s Secret) MarshalJSON() ([]byte, error) {
	if s == "" {
		return []byte("null"), nil
	}
	return json.Marshal(Redacted)
}

// SensitiveKey reports whether a configuration key (a config-file key such
// as kafka.sasl.password, or a Kafka configuration name such as
// ssl.keystore.password or sasl.jaas.config) holds a secret by its name:
// its last dot-separated part names one, as in every configuration Kafka
// types PASSWORD. The Kafka client properties are secrets by their type
// too (kafkaprops, which FieldError asks): this rule covers the
// keys outside that table, a broker's or a bench file's. Keys that name where a secret is (*_file, *_env) or how
// to reach a service (URLKey) do not: a URL's credentials are Redacted
// anyway (URL).
func SensitiveKey(key string) bool {
	k := strings.ToLower(key)
	last := k[strings.LastIndex(k, ".")+1:]
	if strings.HasSuffix(last, "_file") || strings.HasSuffix(last, "_env") || URLKey(key) {
		return false
	}
	for _, w := range sensitiveWords {
		if strings.Contains(last, w) {
			return true
		}
	}
	// Kafka's key material (ssl.keystore.key, delegation.token.master.key)
	// and PEM chains.
	return last == "key" || strings.HasSuffix(last, "_key") || strings.HasSuffix(k, "jaas.config") ||
		strings.HasSuffix(k, "certificate.chain") || last == "certificates"
}

// URLKey reports whether a configuration key holds a URL by its name: its
// last dot-separated part ends in url, uri or endpoint (hosts[].url,
// kafka.sasl.oauth.token_endpoint, Kafka's sasl.oauthbearer.token.endpoint.url).
// Value shows its value through URL.
func URLKey(key string) bool {
	k := strings.ToLower(key)
	last := k[strings.LastIndex(k, ".")+1:]
	for _, s := range []string{"url", "uri", "endpoint"} {
		if strings.HasSuffix(last, s) {
			return true
		}
	}
	return false
}

// sensitiveWords mark a key as a secret when its last part holds one.
var sensitiveWords = []string{"password", "passwd", "passphrase", "secret", "token", "credential", "apikey", "api_key"}

// Value is how every output shows a string value of a configuration
// key: <secret> when the key names a secret (SensitiveKey); a URL with its
// credentials hidden (URL) when it names a URL (URLKey); else the
// value with the credentials of any URL in it hidden (Text). Errors
// (FieldError), logs and reports show configuration values through it.
func Value(key, value string) string {
	switch {
	case value != "" && SensitiveKey(key):
		return Redacted
	case URLKey(key):
		return URL(value)
	}
	return Text(value)
}

// ShownValue is the value FieldError shows for key: a Secret (<secret>)
// when the key names one or Kafka says it is sensitive, else the value.
func ShownValue(key, value string, sensitive bool) any {
	if sensitive || SensitiveKey(key) {
		return Secret(value)
	}
	return value
}

// URL hides the credentials of one URL: the password of its userinfo
// (user:<secret>@), a user without a password (<secret>@) and the values of
// query parameters named like secrets. It works on the text, so that a URL
// that does not parse (shown in its validation error) is Redacted too: the
// userinfo ends at the last '@', as Go's parser reads it, with or without a
// scheme, and the whole query of a URL that does not parse is hidden, since
// where its parameters end cannot be trusted.
func URL(raw string) string {
	scheme, rest, ok := strings.Cut(raw, "://")
	if ok {
		scheme += "://"
	} else {
		scheme, rest = "", raw
	}
	if at := strings.LastIndex(rest, "@"); at >= 0 {
		rest = redactUserinfo(rest[:at]) + rest[at:]
	}
	if _, err := url.Parse(raw); err != nil {
		if q := strings.IndexByte(rest, '?'); q >= 0 {
			rest = rest[:q+1] + Redacted
		}
	}
	return redactQuery(scheme + rest)
}

func redactUserinfo(userinfo string) string {
	if userinfo == "" {
		return ""
	}
	if user, _, ok := strings.Cut(userinfo, ":"); ok {
		return user + ":" + Redacted
	}
	return Redacted
}

var (
	// urlUserinfo is a URL's scheme and userinfo within any text: the
	// userinfo runs to the last '@' before the path, a space or a quote.
	urlUserinfo = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.\-]*://)([^/?#\s"'<>` + "`" + `]*)@`)
	// queryParam is a query parameter whose name suggests a credential;
	// a value already Redacted stays one <secret>.
	queryParam = regexp.MustCompile(`(?i)((?:[?&;]|\\u0026)[^=&#\s"'<>]*(?:password|passwd|secret|token|auth|signature|credential|api[_-]?key|access[_-]?key|sig)[^=&#\s"'<>]*=)(?:` + regexp.QuoteMeta(Redacted) + `|[^&#\s"'<>\\]*)`)
)

// Text hides the credentials of every URL in a text, such as an error
// message (Go's *url.Error quotes the whole URL, userinfo included) or a
// saved result.
func Text(s string) string {
	if !strings.Contains(s, "://") && !strings.ContainsAny(s, "?&;") {
		return s
	}
	s = urlUserinfo.ReplaceAllStringFunc(s, func(m string) string {
		g := urlUserinfo.FindStringSubmatch(m)
		return g[1] + redactUserinfo(g[2]) + "@"
	})
	return redactQuery(s)
}

func redactQuery(s string) string {
	return queryParam.ReplaceAllString(s, "${1}"+Redacted)
}

// RedactedError wraps an error whose text may hold a URL with credentials:
// its text is Text's, and errors.Is and errors.As still reach the
// cause.
type RedactedError struct{ Err error }

func (e RedactedError) Error() string { return Text(e.Err.Error()) }
func (e RedactedError) Unwrap() error { return e.Err }

// Error is err with its text Redacted (RedactedError); nil stays nil.
func Error(err error) error {
	if err == nil {
		return nil
	}
	return RedactedError{Err: err}
}

// YAML returns a YAML document with every secret replaced by
// <secret>: the value of each key that names a secret (SensitiveKey, so
// kafka.sasl.password and a bench file's broker.ssl.keystore.password),
// anything below such a key, and every URL's credentials (hosts[].url).
// Only the secret values change: comments, order and layout stay as the
// user wrote them. Every document of the text is Redacted, not only the
// first; text of which any document does not parse is shown with each line
// that names a secret key cut after the key, and the lines below it that
// are indented deeper (a block scalar) left out.
func YAML(text string) string {
	var docs []*yaml.Node
	dec := yaml.NewDecoder(strings.NewReader(text))
	for {
		doc := new(yaml.Node)
		err := dec.Decode(doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return redactYAMLLines(text)
		}
		docs = append(docs, doc)
	}
	var hidden []*yaml.Node
	var hide func(n *yaml.Node)
	hide = func(n *yaml.Node) {
		switch n.Kind {
		case yaml.ScalarNode:
			hidden = append(hidden, n)
		case yaml.AliasNode:
			if n.Alias != nil && n.Alias.Kind == yaml.ScalarNode {
				hidden = append(hidden, n.Alias) // the anchor shows the value
			}
		default:
			for _, c := range n.Content {
				hide(c)
			}
		}
	}
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				if SensitiveKey(k.Value) && !(v.Kind == yaml.ScalarNode && (v.Tag == "!!null" || v.Value == "")) {
					hide(v)
					continue
				}
				walk(v)
			}
		case yaml.DocumentNode, yaml.SequenceNode:
			for _, c := range n.Content {
				walk(c)
			}
		}
	}
	for _, doc := range docs {
		walk(doc)
	}
	lines := strings.SplitAfter(text, "\n")
	// Right to left, so that an edit leaves the columns of the earlier
	// ones on its line valid.
	sort.Slice(hidden, func(i, j int) bool {
		a, b := hidden[i], hidden[j]
		return a.Line > b.Line || (a.Line == b.Line && a.Column > b.Column)
	})
	cut := map[int]bool{}
	for _, n := range hidden {
		i, col := n.Line-1, n.Column-1
		if i < 0 || i >= len(lines) || cut[i] {
			continue
		}
		l := strings.TrimRight(lines[i], "\r\n")
		nl := lines[i][len(l):]
		if col > len(l) {
			col = len(l)
		}
		col += propsLen(l[col:])
		if end, ok := scalarEnd(l[col:], n); ok {
			lines[i] = l[:col] + Redacted + l[col+end:] + nl
			continue
		}
		// A block, multi-line or tagged scalar: the line ends after the
		// key (keeping the flow brackets it closes) and its continuation
		// lines, indented deeper than the line, go.
		cut[i] = true
		lines[i] = l[:col] + Redacted + closers(l[col:]) + nl
		indent := len(l) - len(strings.TrimLeft(l, " "))
		for j := i + 1; j < len(lines); j++ {
			t := strings.TrimRight(lines[j], "\r\n")
			if strings.TrimSpace(t) != "" && len(t)-len(strings.TrimLeft(t, " ")) <= indent {
				break
			}
			lines[j] = ""
		}
	}
	return Text(strings.Join(lines, ""))
}

// propsLen is the length of a scalar's anchor and tag written before it
// (&pw !!str), which stay.
func propsLen(rest string) int {
	i := 0
	for i < len(rest) && (rest[i] == '&' || rest[i] == '!') {
		j := strings.IndexAny(rest[i:], " \t")
		if j < 0 {
			return 0
		}
		i += j
		for i < len(rest) && (rest[i] == ' ' || rest[i] == '\t') {
			i++
		}
	}
	return i
}

// scalarEnd is the length of a one-line scalar written at the start of
// rest, its quotes included; ok is false when it does not end on the line.
func scalarEnd(rest string, n *yaml.Node) (int, bool) {
	switch n.Style {
	case 0:
		if strings.HasPrefix(rest, n.Value) {
			return len(n.Value), true
		}
	case yaml.DoubleQuotedStyle:
		for i := 1; i < len(rest); i++ {
			switch rest[i] {
			case '\\':
				i++
			case '"':
				return i + 1, rest[0] == '"'
			}
		}
	case yaml.SingleQuotedStyle:
		for i := 1; i < len(rest); i++ {
			if rest[i] == '\'' {
				if i+1 < len(rest) && rest[i+1] == '\'' {
					i++
					continue
				}
				return i + 1, rest[0] == '\''
			}
		}
	}
	return 0, false
}

// closers keeps the flow brackets that close what a cut line opened
// before the hidden value ("{user: a, password: x}" keeps its "}"), so
// that the Redacted document still reads as YAML.
func closers(rest string) string {
	var out strings.Builder
	for _, r := range rest {
		if r == '}' || r == ']' {
			out.WriteRune(r)
		}
	}
	return out.String()
}

// redactYAMLLines is YAML for text that does not parse: a line that
// names a secret key ends after the key, and the lines below it indented
// deeper (its value's continuation, a block scalar) go.
func redactYAMLLines(text string) string {
	lines := strings.SplitAfter(text, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		key, _, ok := strings.Cut(l, ":")
		if !ok || !SensitiveKey(strings.Trim(strings.TrimSpace(key), `{,"'- `)) {
			continue
		}
		lines[i] = key + ": " + Redacted + "\n"
		indent := len(key) - len(strings.TrimLeft(key, " "))
		for i+1 < len(lines) {
			t := strings.TrimRight(lines[i+1], "\r\n")
			if strings.TrimSpace(t) != "" && len(t)-len(strings.TrimLeft(t, " ")) <= indent {
				break
			}
			i++
			lines[i] = ""
		}
	}
	return Text(strings.Join(lines, ""))
}
