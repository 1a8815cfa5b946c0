package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kafka-bench/kafka_bench_exporter/kclient/kafkaprops"
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
	"sasl.oauthbearer.token.endpoint.url", "sasl.login.callback.handler.class",
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
	if v, ok := get("sasl.login.callback.handler.class"); ok && !strings.HasSuffix(v, ".OAuthBearerLoginCallbackHandler") {
		return fail("sasl.login.callback.handler.class", javaClassReason)
	}
	jaas, ok := get("sasl.jaas.config")
	if !ok {
		return nil
	}
	module, options, err := parseJAAS(jaas)
	if err != nil {
		return fail("sasl.jaas.config", err.Error())
	}
	want := map[string]string{"PLAIN": "PlainLoginModule", "SCRAM-SHA-256": "ScramLoginModule", "SCRAM-SHA-512": "ScramLoginModule",
		"OAUTHBEARER": "OAuthBearerLoginModule", "GSSAPI": "Krb5LoginModule"}[strings.ToUpper(mechanism)]
	if want == "" || !strings.HasSuffix(module, "."+want) {
		return fail("sasl.jaas.config", fmt.Sprintf("login module %s does not serve sasl.mechanism %s", module, mechanism))
	}
	sasl := func(path ...string) []string { return append([]string{"sasl"}, path...) }
	for _, o := range options {
		switch {
		case want != "Krb5LoginModule" && want != "OAuthBearerLoginModule" && o.key == "username":
			yamlnode.SetPath(kafka, sasl("username"), str(o.value))
		case want != "Krb5LoginModule" && want != "OAuthBearerLoginModule" && o.key == "password":
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
		case want == "Krb5LoginModule" && o.key == "serviceName":
			yamlnode.SetPath(kafka, sasl("kerberos", "service_name"), str(o.value))
		case want == "Krb5LoginModule" && (o.key == "useKeyTab" || o.key == "storeKey") && strings.EqualFold(o.value, "true"),
			want == "Krb5LoginModule" && o.key == "useTicketCache" && strings.EqualFold(o.value, "false"):
		default:
			return fail("sasl.jaas.config", fmt.Sprintf("option %s of %s is not supported (franz-go logs in with a keytab, a password or a token endpoint only)", o.key, want))
		}
	}
	return nil
}

const javaClassReason = "names a Java class, which a Go client cannot load"

type jaasOption struct{ key, value string }

// parseJAAS parses one JAAS login module entry, `Module flag k=v k="v";`,
// as sasl.jaas.config holds it. Its errors never quote the text: it holds
// passwords.
func parseJAAS(s string) (module string, options []jaasOption, err error) {
	s = strings.TrimSpace(s)
	if !strings.HasSuffix(s, ";") {
		return "", nil, fmt.Errorf("must end with ';'")
	}
	s = strings.TrimSpace(strings.TrimSuffix(s, ";"))
	fields := func() (string, bool) {
		s = strings.TrimLeft(s, " \t\n")
		i := strings.IndexAny(s, " \t\n")
		if i < 0 {
			i = len(s)
		}
		f := s[:i]
		s = s[i:]
		return f, f != ""
	}
	module, _ = fields()
	flag, ok := fields()
	if !ok || !slices.Contains([]string{"required", "requisite", "sufficient", "optional"}, flag) {
		return "", nil, fmt.Errorf("must be <LoginModule> required <option>=<value> ...;")
	}
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		eq := strings.IndexByte(s, '=')
		if eq <= 0 {
			return "", nil, fmt.Errorf("an option of %s is not <name>=<value>", module)
		}
		key := strings.TrimSpace(s[:eq])
		s = strings.TrimLeft(s[eq+1:], " \t")
		var value string
		if strings.HasPrefix(s, `"`) {
			end := -1
			for i := 1; i < len(s); i++ {
				if s[i] == '\\' {
					i++
					continue
				}
				if s[i] == '"' {
					end = i
					break
				}
			}
			if end < 0 {
				return "", nil, fmt.Errorf("option %s of %s has an unterminated quote", key, module)
			}
			value = strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(s[1:end])
			s = s[end+1:]
		} else {
			i := strings.IndexAny(s, " \t\n")
			if i < 0 {
				i = len(s)
			}
			value, s = s[:i], s[i:]
		}
		options = append(options, jaasOption{key, value})
	}
	return module, options, nil
}

// str is a string scalar: a password of digits stays a string.
func str(v string) *yaml.Node { return yamlnode.Str(v) }

// plain is a scalar typed as YAML would type it unquoted (5, true, all).
func plain(v string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Value: v}
	n.Tag = n.ShortTag()
	return n
}
