package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kafka-bench/kafka_bench_exporter/kafkaprops"
	"github.com/kafka-bench/kafka_bench_exporter/yamlnode"
)

// A Kafka client properties file (kafka.properties_file) is the
// client.properties a team already has: Load reads it and merges what it
// says under the YAML, as if its keys were written there. Its connection
// keys become the kafka block's (clientKeys), its producer and consumer
// keys the producer: and consumer: blocks of every probe (by
// kafkaprops.Properties). A key that the YAML sets too keeps the YAML's
// value: the file is the team's shared default, the YAML this exporter's
// choice. A key it cannot honour is an error naming the file, the line, the
// key and why, its value shown only when it holds no secret (an unknown
// key's never: it is most likely a misspelt secret key).

// propsTree is a properties file as YAML: the kafka block, and the
// producer: and consumer: blocks every probe gets.
type propsTree struct {
	kafka, producer, consumer *yaml.Node
}

// clientKeys are the connection properties and what each becomes; the
// security keys need the file's other keys, so they are handled together
// (security).
var clientKeys = map[string][]string{
	"bootstrap.servers": {"brokers"},
	"client.id":         {"client_id"},
}

// securityKeys are the properties security reads.
var securityKeys = []string{"security.protocol", "sasl.mechanism", "sasl.jaas.config", "sasl.kerberos.service.name",
	"sasl.oauthbearer.token.endpoint.url", "sasl.login.callback.handler.class", "sasl.client.callback.handler.class",
	"ssl.truststore.type", "ssl.truststore.location", "ssl.truststore.password",
	"ssl.keystore.type", "ssl.keystore.location", "ssl.keystore.password", "ssl.key.password",
	"ssl.endpoint.identification.algorithm", "ssl.protocol", "ssl.enabled.protocols"}

// propertiesToYAML maps the entries of properties file file onto the kafka
// block and the probes' producer: and consumer: blocks; abs makes a path
// the file names absolute (relative to the file's directory).
func propertiesToYAML(entries []PropertyEntry, file string, abs func(string) string) (propsTree, error) {
	t := propsTree{kafka: yamlnode.Mapping(), producer: yamlnode.Mapping(), consumer: yamlnode.Mapping()}
	sec := map[string]PropertyEntry{}
	rows := map[string][]kafkaprops.Property{} // a name may have a row per client
	for _, p := range kafkaprops.Properties {
		rows[p.Name] = append(rows[p.Name], p)
	}
	for _, e := range entries {
		// Kafka's ConfigDef trims every value it parses, whatever its
		// type, a password too (String.trim: blanks and control
		// characters); java.util.Properties keeps trailing blanks.
		e.Value = strings.TrimFunc(e.Value, func(r rune) bool { return r <= ' ' })
		where := fmt.Sprintf("%s:%d", file, e.Line)
		if path, ok := clientKeys[e.Key]; ok {
			v := str(e.Value)
			if e.Key == "bootstrap.servers" {
				v = &yaml.Node{Kind: yaml.SequenceNode}
				for b := range strings.SplitSeq(e.Value, ",") {
					v.Content = append(v.Content, str(strings.TrimSpace(b)))
				}
			}
			yamlnode.SetPath(t.kafka, path, v)
			continue
		}
		if slices.Contains(securityKeys, e.Key) {
			sec[e.Key] = e
			continue
		}
		named := rows[e.Key]
		if len(named) == 0 {
			// A properties file holds secrets (sasl.jaas.config, the
			// stores' passwords) as kafka.sasl does.
			return propsTree{}, unknownKeyError(where, e.Key, e.Value, true, "not a Kafka producer or consumer property (kafka-clients 4.4.0)")
		}
		mapped := false
		for _, row := range named {
			if row.Class != kafkaprops.Mapped {
				continue
			}
			mapped = true
			if row.In&kafkaprops.Producer != 0 {
				yamlnode.SetPath(t.producer, []string{e.Key}, plain(e.Value))
			}
			if row.In&kafkaprops.Consumer != 0 {
				yamlnode.SetPath(t.consumer, []string{e.Key}, plain(e.Value))
			}
		}
		if !mapped {
			return propsTree{}, FieldError(where, e.Key, e.Value, fmt.Sprintf("%s: %s", named[0].Class, named[0].Note))
		}
	}
	if err := security(t.kafka, sec, file, abs); err != nil {
		return propsTree{}, err
	}
	return t, nil
}

// security maps the security.protocol, sasl.* and ssl.* properties.
func security(kafka *yaml.Node, sec map[string]PropertyEntry, file string, abs func(string) string) error {
	get := func(k string) (string, bool) { e, ok := sec[k]; return e.Value, ok }
	fail := func(k, problem string) error {
		e := sec[k]
		return FieldError(fmt.Sprintf("%s:%d", file, e.Line), k, e.Value, problem)
	}
	protocol, _ := get("security.protocol")
	if protocol == "" {
		protocol = "PLAINTEXT"
	}
	withTLS, withSASL := false, false
	switch strings.ToUpper(protocol) {
	case "PLAINTEXT":
	case "SSL":
		withTLS = true
	case "SASL_PLAINTEXT":
		withSASL = true
	case "SASL_SSL":
		withTLS, withSASL = true, true
	default:
		return fail("security.protocol", "must be PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL")
	}
	for _, k := range slices.Sorted(maps.Keys(sec)) { // the first in order, run after run
		switch {
		case strings.HasPrefix(k, "sasl.") && !withSASL:
			return fail(k, "applies only with security.protocol SASL_PLAINTEXT or SASL_SSL, as in Kafka (security.protocol is "+protocol+")")
		case strings.HasPrefix(k, "ssl.") && !withTLS:
			return fail(k, "applies only with security.protocol SSL or SASL_SSL, as in Kafka (security.protocol is "+protocol+")")
		}
	}
	if withTLS {
		yamlnode.SetPath(kafka, []string{"tls", "enabled"}, plain("true"))
		if err := sslProperties(kafka, get, fail, abs); err != nil {
			return err
		}
	}
	if withSASL {
		return saslProperties(kafka, get, fail, abs)
	}
	return nil
}

// sslProperties maps the trust and key stores (PEM files, PKCS12 and JKS
// stores with their passwords) and the checks.
func sslProperties(kafka *yaml.Node, get func(string) (string, bool), fail func(k, problem string) error, abs func(string) string) error {
	tls := func(key string) []string { return []string{"tls", key} }
	convert := "Go reads PEM, PKCS12 and JKS stores: convert it (keytool -importkeystore -deststoretype PKCS12)"
	for _, s := range []struct {
		store    string   // truststore, keystore
		pem      []string // the kafka.tls keys of a PEM store
		password []string // the properties of its passwords and the keys they become
	}{
		{"truststore", []string{"ca_file"}, []string{"ssl.truststore.password", "truststore_password"}},
		{"keystore", []string{"cert_file", "key_file"}, []string{"ssl.keystore.password", "keystore_password", "ssl.key.password", "key_password"}},
	} {
		prop := "ssl." + s.store + "."
		typ, typed := get(prop + "type")
		if !typed {
			typ = storeJKS // Kafka's default
		}
		loc, located := get(prop + "location")
		switch t := strings.ToUpper(typ); {
		case t == "PEM":
			if located {
				// A PEM keystore is one file: the certificate chain and the key.
				for _, k := range s.pem {
					yamlnode.SetPath(kafka, tls(k), str(abs(loc)))
				}
			}
			for i := 0; i < len(s.password); i += 2 {
				if _, ok := get(s.password[i]); ok {
					return fail(s.password[i], "a PEM "+s.store+" has no password: decrypt an encrypted key into the PEM file (openssl pkey)")
				}
			}
			continue
		case t == "" || storeType(t) == "":
			return fail(prop+"type", "must be PEM, PKCS12 or JKS: "+convert)
		case !located:
			if typed {
				return fail(prop+"type", "needs "+prop+"location, the "+s.store+" it describes")
			}
		case s.store == "keystore" && t == storeJKS && !has(get, "ssl.keystore.password"):
			return fail(prop+"location", "a JKS keystore needs ssl.keystore.password, as in Kafka")
		default:
			yamlnode.SetPath(kafka, tls(s.store+"_file"), str(abs(loc)))
			yamlnode.SetPath(kafka, tls(s.store+"_type"), str(t))
		}
		for i := 0; i < len(s.password); i += 2 {
			if v, ok := get(s.password[i]); ok {
				if !located {
					return fail(s.password[i], "needs "+prop+"location, the "+s.store+" it opens")
				}
				yamlnode.SetPath(kafka, tls(s.password[i+1]), str(v))
			}
		}
	}
	if alg, ok := get("ssl.endpoint.identification.algorithm"); ok && !strings.EqualFold(alg, "https") {
		return fail("ssl.endpoint.identification.algorithm", "the broker's host name is always verified (https); set kafka.tls.server_name to check another name")
	}
	for _, k := range []string{"ssl.protocol", "ssl.enabled.protocols"} {
		v, ok := get(k)
		if !ok {
			continue
		}
		for p := range strings.SplitSeq(v, ",") {
			if p = strings.TrimSpace(p); p != "TLSv1.2" && p != "TLSv1.3" && p != "TLS" {
				return fail(k, "Go speaks TLS 1.2 and 1.3 only, whichever the broker chooses")
			}
		}
	}
	return nil
}

// storeKeys are the kafka.tls keys of the trust material and of the client
// certificate: the first of each names a file, the rest are its type and
// passwords.
var storeKeys = [][]string{
	{"ca_file", "truststore_file", "truststore_type", "truststore_password"},
	{"cert_file", "key_file", "keystore_file", "keystore_type", "keystore_password", "key_password"},
}

// yamlChoosesStores drops from the properties file's kafka block (props)
// the trust material when the YAML's kafka.tls names a CA file or a
// truststore, and the client certificate when it names one, so that the
// YAML's choice wins as for any other key, although the keys differ
// (a PEM ca_file in the YAML, a JKS truststore in the file).
func yamlChoosesStores(kafka, props *yaml.Node) {
	yt, pt := yamlnode.Lookup(kafka, "tls"), yamlnode.Lookup(props, "tls")
	if yt == nil || pt == nil || pt.Kind != yaml.MappingNode {
		return
	}
	for _, keys := range storeKeys {
		chosen := false
		for _, k := range keys {
			if strings.HasSuffix(k, "_file") && yamlnode.Lookup(yt, k) != nil {
				chosen = true
			}
		}
		if !chosen {
			continue
		}
		var kept []*yaml.Node
		for i := 0; i+1 < len(pt.Content); i += 2 {
			if !slices.Contains(keys, pt.Content[i].Value) {
				kept = append(kept, pt.Content[i], pt.Content[i+1])
			}
		}
		pt.Content = kept
	}
}

// secretKeys are the secrets of the kafka block a properties file sets,
// by block and key: each comes from one of the key, its _file and its _env
// (secret.Source).
var secretKeys = [][2]string{{"sasl", "password"}, {"tls", "truststore_password"}, {"tls", "keystore_password"}, {"tls", "key_password"}}

// yamlChoosesSecrets drops from the properties file's kafka block (props)
// each secret the YAML's kafka block sets in any of its three ways, so
// that a YAML's password_file or password_env wins over the file's JAAS
// password as its password would, although the keys differ.
func yamlChoosesSecrets(kafka, props *yaml.Node) {
	for _, k := range secretKeys {
		yb, pb := yamlnode.Lookup(kafka, k[0]), yamlnode.Lookup(props, k[0])
		if yb == nil || pb == nil || pb.Kind != yaml.MappingNode {
			continue
		}
		if yamlnode.Lookup(yb, k[1]) == nil && yamlnode.Lookup(yb, k[1]+"_file") == nil && yamlnode.Lookup(yb, k[1]+"_env") == nil {
			continue
		}
		var kept []*yaml.Node
		for i := 0; i+1 < len(pb.Content); i += 2 {
			if pb.Content[i].Value != k[1] {
				kept = append(kept, pb.Content[i], pb.Content[i+1])
			}
		}
		pb.Content = kept
	}
}

func has(get func(string) (string, bool), k string) bool { _, ok := get(k); return ok }

// saslProperties maps sasl.mechanism and the JAAS login module's options.
func saslProperties(kafka *yaml.Node, get func(string) (string, bool), fail func(k, problem string) error, abs func(string) string) error {
	mechanism, _ := get("sasl.mechanism")
	if mechanism == "" {
		mechanism = "GSSAPI" // Kafka's default
	}
	yamlnode.SetPath(kafka, []string{"sasl", "mechanism"}, str(mechanism))
	if v, ok := get("sasl.kerberos.service.name"); ok {
		yamlnode.SetPath(kafka, []string{"sasl", "kerberos", "service_name"}, str(v))
	}
	if v, ok := get("sasl.oauthbearer.token.endpoint.url"); ok {
		yamlnode.SetPath(kafka, []string{"sasl", "oauth", "token_endpoint"}, str(v))
	}
	if v, ok := get("sasl.login.callback.handler.class"); ok && v != oauthLoginHandler {
		return fail("sasl.login.callback.handler.class", javaClassReason)
	}
	if v, ok := get("sasl.client.callback.handler.class"); ok && (v != awsCallbackHandler || !strings.EqualFold(mechanism, "AWS_MSK_IAM")) {
		return fail("sasl.client.callback.handler.class", javaClassReason)
	}
	jaas, ok := get("sasl.jaas.config")
	if !ok {
		return nil
	}
	module, options, err := parseJAAS(jaas)
	if err != nil {
		return fail("sasl.jaas.config", err.Error())
	}
	class, ok := loginModules[strings.ToUpper(mechanism)]
	switch {
	case !ok:
		return fail("sasl.jaas.config", fmt.Sprintf("login module %s does not serve sasl.mechanism %s", module, mechanism))
	case module != class:
		return fail("sasl.jaas.config", fmt.Sprintf("login module %s does not serve sasl.mechanism %s: its login module is %s", module, mechanism, class))
	}
	want := class[strings.LastIndex(class, ".")+1:]
	sasl := func(path ...string) []string { return append([]string{"sasl"}, path...) }
	for _, o := range options {
		switch {
		case (want == "PlainLoginModule" || want == "ScramLoginModule") && o.key == "username":
			yamlnode.SetPath(kafka, sasl("username"), str(o.value))
		case (want == "PlainLoginModule" || want == "ScramLoginModule") && o.key == "password":
			yamlnode.SetPath(kafka, sasl("password"), str(o.value))
		case want == "OAuthBearerLoginModule" && o.key == "clientId":
			yamlnode.SetPath(kafka, sasl("oauth", "client_id"), str(o.value))
		case want == "OAuthBearerLoginModule" && o.key == "scope":
			yamlnode.SetPath(kafka, sasl("oauth", "scope"), str(o.value))
		case want == "OAuthBearerLoginModule" && o.key == "clientSecret":
			return fail("sasl.jaas.config", "option clientSecret: the token endpoint's secret is read from a file, re-read when it rotates: set kafka.sasl.oauth.client_secret_file in the YAML and leave clientSecret out")
		case want == "Krb5LoginModule" && o.key == "keyTab":
			yamlnode.SetPath(kafka, sasl("kerberos", "keytab_file"), str(abs(o.value)))
		case want == "Krb5LoginModule" && o.key == "principal":
			user, realm, _ := strings.Cut(o.value, "@")
			yamlnode.SetPath(kafka, sasl("username"), str(user))
			if realm != "" {
				yamlnode.SetPath(kafka, sasl("kerberos", "realm"), str(realm))
			}
		case want == "IAMLoginModule" && awsOptions[o.key] != "":
			yamlnode.SetPath(kafka, sasl("aws", awsOptions[o.key]), str(o.value))
		case want == "Krb5LoginModule" && o.key == "serviceName":
			yamlnode.SetPath(kafka, sasl("kerberos", "service_name"), str(o.value))
		case want == "Krb5LoginModule" && (o.key == "useKeyTab" || o.key == "storeKey") && strings.EqualFold(o.value, "true"),
			want == "Krb5LoginModule" && o.key == "useTicketCache" && strings.EqualFold(o.value, "false"):
		default:
			return fail("sasl.jaas.config", fmt.Sprintf("option %s of %s is not supported (franz-go logs in with a keytab, a password, a token endpoint or the AWS credential chain only)", o.key, want))
		}
	}
	return nil
}

const javaClassReason = "names a Java class, which a Go client cannot load"

// loginModules are the login modules of the mechanisms, by the class name
// a JAAS line names: Kafka's, and the JDK's for Kerberos.
var loginModules = map[string]string{
	"PLAIN":         "org.apache.kafka.common.security.plain.PlainLoginModule",
	"SCRAM-SHA-256": "org.apache.kafka.common.security.scram.ScramLoginModule",
	"SCRAM-SHA-512": "org.apache.kafka.common.security.scram.ScramLoginModule",
	"OAUTHBEARER":   "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule",
	"GSSAPI":        "com.sun.security.auth.module.Krb5LoginModule",
	"AWS_MSK_IAM":   "software.amazon.msk.auth.iam.IAMLoginModule", // Amazon's aws-msk-iam-auth
}

// awsCallbackHandler is aws-msk-iam-auth's client callback handler, the one
// sasl.client.callback.handler.class may name (with AWS_MSK_IAM).
const awsCallbackHandler = "software.amazon.msk.auth.iam.IAMClientCallbackHandler"

// awsOptions are the options of aws-msk-iam-auth's IAMLoginModule the
// kafka.sasl.aws block has.
var awsOptions = map[string]string{"awsProfileName": "profile", "awsRoleArn": "role_arn", "awsRoleSessionName": "session_name", "awsStsRegion": "region"}

// oauthLoginHandler is Kafka's login callback handler of OAUTHBEARER with
// a token endpoint, the one sasl.login.callback.handler.class may name.
const oauthLoginHandler = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler"

type jaasOption struct{ key, value string }

// parseJAAS parses sasl.jaas.config as Kafka's JaasConfig does, with Java's
// StreamTokenizer (jaasTokens): one login module entry,
// `Module flag k=v k="v" k='v';`, the flag in any case, values a word or a
// quoted string (with Java's escapes), comments (`//`, `/* */`) skipped; a
// client takes exactly one entry (JaasContext.loadClientContext). Its
// errors never quote the text: it holds passwords.
func parseJAAS(s string) (module string, options []jaasOption, err error) {
	t := jaasTokens{s: []rune(s)}
	const shape = "must be <LoginModule> required <option>=<value> ...;"
	entries := 0
	for tok := t.next(); tok.kind != jaasEOF; tok = t.next() {
		if entries++; entries > 1 {
			return "", nil, fmt.Errorf("holds more than one login module; a client takes one, as in Kafka")
		}
		var ok bool
		if module, ok = tok.text(); !ok {
			return "", nil, fmt.Errorf("%s (the login module is not a class name)", shape)
		}
		flag, ok := t.next().text()
		if !ok || !slices.Contains([]string{"REQUIRED", "REQUISITE", "SUFFICIENT", "OPTIONAL"}, strings.ToUpper(flag)) {
			return "", nil, fmt.Errorf("%s (the control flag of %s is required, requisite, sufficient or optional)", shape, module)
		}
		for tok = t.next(); tok.kind != jaasEOF && !tok.is(';'); tok = t.next() {
			key, _ := tok.text()
			value, ok := "", t.next().is('=')
			if ok {
				value, ok = t.next().text()
			}
			if !ok {
				// Never the key: a value cut where it should have
				// been quoted shows its pieces as keys.
				return "", nil, fmt.Errorf("an option of %s is not <name>=<value>, the value a word of letters, digits and . - _ $ or quoted (\"...\" or '...'), as Kafka's JAAS parser reads it", module)
			}
			options = append(options, jaasOption{key, value})
		}
		if !tok.is(';') {
			return "", nil, fmt.Errorf("must end with ';'")
		}
	}
	if entries == 0 {
		return "", nil, fmt.Errorf("%s (it is empty)", shape)
	}
	return module, options, nil
}

// A jaasToken is one token of Java's StreamTokenizer: a word or a quoted
// string (text), a number, or another character (char).
type jaasToken struct {
	kind int
	val  string
	char rune
}

const (
	jaasEOF = iota
	jaasText
	jaasNumber
	jaasChar
)

func (t jaasToken) is(c rune) bool { return t.kind == jaasChar && t.char == c }

// text is the token's text, if it is a word or a quoted string.
func (t jaasToken) text() (string, bool) { return t.val, t.kind == jaasText }

// jaasTokens is java.io.StreamTokenizer as Kafka's JaasConfig sets it up:
// blanks (up to ' ') between tokens; words of letters, digits and
// . - _ $ (and of any character from U+00A0 up), not starting with a digit,
// '.' or '-' (a number); strings in " or ', ending at the quote or the line,
// with the escapes \a \b \f \n \r \t \v, octal \ooo and \<char>; '/' starts
// a comment (// and a lone / to the end of the line, /* */); any other
// character is a token of its own.
type jaasTokens struct {
	s []rune
	i int
}

func (t *jaasTokens) read() rune {
	if t.i >= len(t.s) {
		t.i++
		return -1
	}
	t.i++
	return t.s[t.i-1]
}

func (t *jaasTokens) unread() { t.i-- }

func jaasDigit(c rune) bool { return c >= '0' && c <= '9' || c == '.' || c == '-' }

func jaasAlpha(c rune) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0xA0 || c == '-' || c == '_' || c == '$'
}

func (t *jaasTokens) next() jaasToken {
	c := t.read()
	for c >= 0 && c <= ' ' {
		c = t.read()
	}
	switch {
	case c < 0:
		return jaasToken{kind: jaasEOF}
	case jaasDigit(c):
		if c == '-' {
			if c = t.read(); c != '.' && (c < '0' || c > '9') {
				t.unread()
				return jaasToken{kind: jaasChar, char: '-'}
			}
		}
		for dot := false; c == '.' && !dot || c >= '0' && c <= '9'; c = t.read() {
			dot = dot || c == '.'
		}
		t.unread()
		return jaasToken{kind: jaasNumber}
	case jaasAlpha(c):
		start := t.i - 1
		for c >= 0 && (jaasAlpha(c) || jaasDigit(c)) {
			c = t.read()
		}
		t.unread()
		return jaasToken{kind: jaasText, val: string(t.s[start:t.i])}
	case c == '"' || c == '\'':
		return jaasToken{kind: jaasText, val: t.quoted(c)}
	case c == '/':
		if c = t.read(); c != '*' {
			t.toLineEnd() // "//", and '/', Java's comment character
			return t.next()
		}
		for prev, cur := rune(0), rune(0); prev != '*' || cur != '/'; {
			if prev, cur = cur, t.read(); cur < 0 {
				return jaasToken{kind: jaasEOF}
			}
		}
		return t.next()
	}
	return jaasToken{kind: jaasChar, char: c}
}

// toLineEnd skips to the end of the line (a comment).
func (t *jaasTokens) toLineEnd() {
	c := t.read()
	for c >= 0 && c != '\n' && c != '\r' {
		c = t.read()
	}
	t.unread()
}

// quoted reads a string quoted by q, its opening quote read.
func (t *jaasTokens) quoted(q rune) string {
	var b strings.Builder
	for c := t.read(); c >= 0 && c != q; c = t.read() {
		if c == '\n' || c == '\r' {
			t.unread() // an unterminated string ends with its line
			break
		}
		if c != '\\' {
			b.WriteRune(c)
			continue
		}
		switch c = t.read(); {
		case c >= '0' && c <= '7':
			v, first := c-'0', c
			for n := 1; n < 3; n++ {
				d := t.read()
				if d < '0' || d > '7' || n == 2 && first > '3' {
					t.unread()
					break
				}
				v = v<<3 + d - '0'
			}
			c = v
		default:
			if e, ok := map[rune]rune{'a': 7, 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t', 'v': '\v'}[c]; ok {
				c = e
			}
		}
		if c >= 0 {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// str is a string scalar: a password of digits stays a string.
func str(v string) *yaml.Node { return yamlnode.Str(v) }

// plain is a scalar typed as YAML would type it unquoted (5, true, all).
func plain(v string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Value: v}
	n.Tag = n.ShortTag()
	return n
}
