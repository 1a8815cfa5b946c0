package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseProperties(t *testing.T) {
	got, err := ParseProperties([]byte("# a comment\n! another\n\n  bootstrap.servers = a:9092,\\\n    b:9092\nclient.id:bench\nsasl.jaas.config org.example.M required \\\n  user=\"x\";\nkey\\=with\\ blanks=v\\u00e9\\tx\nempty=\nacks=1\nacks=all\ntrailing=\\\\\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []PropertyEntry{
		{"bootstrap.servers", "a:9092,b:9092", 4},
		{"client.id", "bench", 6},
		{"sasl.jaas.config", `org.example.M required user="x";`, 7},
		{"key=with blanks", "vé\tx", 9},
		{"empty", "", 10},
		{"acks", "all", 12}, // the last one wins, as in Java
		{"trailing", `\`, 13},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseProperties:\n got %+v\nwant %+v", got, want)
	}
	for _, bad := range []string{"k=\\u12", "k=\\uzzzz", "k=\\u+123"} {
		if _, err := ParseProperties([]byte(bad)); err == nil {
			t.Errorf("ParseProperties(%q) = nil error, want one", bad)
		}
	}
}

// The text as Java's Properties.load(InputStream) reads it, as every Kafka
// tool loads a client.properties: ISO-8859-1 (a UTF-8 "é" is two
// characters, as to the Java clients), a surrogate pair of escapes one
// character, a lone \r the end of a line.
func TestParsePropertiesAsJava(t *testing.T) {
	for in, want := range map[string][]PropertyEntry{
		"a=\\uD83D\\uDE00\nlone=\\uD83D!\n": {{"a", "\U0001F600", 1}, {"lone", "\uFFFD!", 2}},
		"a=1\rb=2\rc=x\\\r   y\r\nd=4":      {{"a", "1", 1}, {"b", "2", 2}, {"c", "xy", 3}, {"d", "4", 5}},
		"utf8=\xc3\xa9\nlatin1=\xe9\n":      {{"utf8", "\u00c3\u00a9", 1}, {"latin1", "é", 2}},
	} {
		got, err := ParseProperties([]byte(in))
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("ParseProperties(%q):\n got %#v, %v\nwant %#v", in, got, err, want)
		}
	}
}

func FuzzParseProperties(f *testing.F) {
	for _, s := range []string{"a=b\n", "a\\\n b", "#c\n!d\nk:v", "k\\u0041=\\t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		entries, err := ParseProperties([]byte(s))
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, e := range entries {
			if seen[e.Key] {
				t.Fatalf("key %q twice", e.Key)
			}
			seen[e.Key] = true
		}
	})
}

// loadWith writes the YAML and the properties file into a directory of
// their own and loads the YAML.
func loadWith(t *testing.T, yamlText, props string) (*Config, error) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "client.properties"), []byte(props), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "config.yml")
	if err := os.WriteFile(path, []byte(yamlText), 0o600); err != nil {
		t.Fatal(err)
	}
	return LoadFile(path)
}

// A team's client.properties for SASL_SSL / SCRAM with a PEM truststore and
// producer and consumer settings: the kafka block and every probe get them;
// what the YAML sets too keeps the YAML's value; paths are relative to the
// properties file.
func TestPropertiesFile(t *testing.T) {
	cfg, err := loadWith(t, `
kafka:
  properties_file: client.properties
  client_id: from-yaml
probes:
  - name: a
  - name: b
    producer: {linger.ms: 20}
    consumer: {isolation.level: read_uncommitted}
`, `bootstrap.servers=k1:9093, k2:9093
client.id=from-file
security.protocol=SASL_SSL
sasl.mechanism=SCRAM-SHA-512
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="bench" password="p@ss w=rd";
ssl.truststore.type=PEM
ssl.truststore.location=certs/ca.pem
ssl.endpoint.identification.algorithm=https
linger.ms=5
compression.type=lz4
isolation.level=read_committed
metadata.max.age.ms=60000
`)
	if err != nil {
		t.Fatal(err)
	}
	k := cfg.Kafka
	if !reflect.DeepEqual(k.Brokers, []string{"k1:9093", "k2:9093"}) || k.ClientID != "from-yaml" || !k.TLS.Enabled ||
		k.SASL.Mechanism != "SCRAM-SHA-512" || k.SASL.Username != "bench" || string(k.SASL.Password) != "p@ss w=rd" {
		t.Errorf("kafka block = %+v", k)
	}
	if !filepath.IsAbs(k.TLS.CAFile) || !strings.HasSuffix(k.TLS.CAFile, "/certs/ca.pem") {
		t.Errorf("tls.ca_file = %q, want certs/ca.pem beside the properties file", k.TLS.CAFile)
	}
	a, b := cfg.Probes[0], cfg.Probes[1]
	for _, c := range []struct {
		what      string
		got, want any
	}{
		{"a producer.linger.ms", a.Producer.LingerMS, 5},
		{"b producer.linger.ms (the YAML's)", b.Producer.LingerMS, 20},
		{"a producer.compression.type", a.Producer.CompressionType, "lz4"},
		{"b producer.compression.type", b.Producer.CompressionType, "lz4"},
		{"a consumer.isolation.level", a.Consumer.IsolationLevel, "read_committed"},
		{"b consumer.isolation.level (the YAML's)", b.Consumer.IsolationLevel, "read_uncommitted"},
		{"a producer.metadata.max.age.ms", a.Producer.MetadataMaxAgeMS, 60000},
		{"a consumer.metadata.max.age.ms", a.Consumer.MetadataMaxAgeMS, 60000},
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
		}
	}
	out, err := cfg.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "p@ss") {
		t.Errorf("the effective configuration shows the password:\n%s", out)
	}
}

// GSSAPI with a keytab, from the JAAS line Kafka's docs give.
func TestPropertiesFileKerberos(t *testing.T) {
	cfg, err := loadWith(t, "kafka: {properties_file: client.properties}\nprobes: [{name: a}]\n", `bootstrap.servers=k1:9093
security.protocol=SASL_PLAINTEXT
sasl.mechanism=GSSAPI
sasl.kerberos.service.name=kafka
sasl.jaas.config=com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true storeKey=true keyTab="bench.keytab" principal="bench@EXAMPLE.COM";
`)
	if err != nil {
		t.Fatal(err)
	}
	s := cfg.Kafka.SASL
	if s.Mechanism != "GSSAPI" || s.Username != "bench" || s.Kerberos.Realm != "EXAMPLE.COM" || s.Kerberos.ServiceName != "kafka" ||
		!filepath.IsAbs(s.Kerberos.KeytabFile) || filepath.Base(s.Kerberos.KeytabFile) != "bench.keytab" {
		t.Errorf("kafka.sasl = %+v", s)
	}
}

// What a properties file cannot say is an error naming the file, the line
// and the key, with the reason; never the password.
func TestPropertiesFileInvalid(t *testing.T) {
	const yamlText = "kafka: {properties_file: client.properties}\nprobes: [{name: a}]\n"
	for props, want := range map[string]string{
		"linger.mss=5\n": `client.properties:1: linger.mss = <secret>: not a Kafka producer or consumer property (kafka-clients 4.4.0)`,
		// A misspelt secret key: its value is most likely the secret, as
		// in the YAML's kafka.sasl.
		"security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\nsasl.jaas.confg=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"hunter2\";\n": `client.properties:3: sasl.jaas.confg = <secret>: not a Kafka producer or consumer property`,
		"bootstrap.servers=k:9092\npartitioner.class=org.example.P\n":                                                       `client.properties:2: partitioner.class = "org.example.P": not applicable: the probe chooses every record's partition itself`,
		"security.protocol=SSL\nssl.truststore.type=BCFKS\nssl.truststore.location=t.bcfks\n":                               `client.properties:2: ssl.truststore.type = "BCFKS": must be PEM, PKCS12 or JKS: Go reads PEM, PKCS12 and JKS stores: convert it (keytool -importkeystore -deststoretype PKCS12)`,
		"security.protocol=SSL\nssl.keystore.location=/etc/kafka/keystore.jks\n":                                            `client.properties:2: ssl.keystore.location = "/etc/kafka/keystore.jks": a JKS keystore needs ssl.keystore.password, as in Kafka`,
		"security.protocol=SSL\nssl.truststore.password=hunter2\n":                                                          `client.properties:2: ssl.truststore.password = "<secret>": needs ssl.truststore.location, the truststore it opens`,
		"security.protocol=SSL\nssl.keystore.type=PKCS12\nssl.key.password=hunter2\n":                                       `client.properties:2: ssl.keystore.type = "PKCS12": needs ssl.keystore.location, the keystore it describes`,
		"security.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.location=ca.pem\nssl.truststore.password=hunter2\n": `client.properties:4: ssl.truststore.password = "<secret>": a PEM truststore has no password`,
		"security.protocol=SSL\nssl.keystore.type=PEM\nssl.keystore.location=k.pem\nssl.key.password=hunter2\n":             `client.properties:4: ssl.key.password = "<secret>": a PEM keystore has no password: decrypt an encrypted key into the PEM file (openssl pkey)`,
		"security.protocol=SSL\nssl.endpoint.identification.algorithm=\n":                                                   `client.properties:2: ssl.endpoint.identification.algorithm = "": the broker's host name is always verified`,
		"security.protocol=SSL\nssl.enabled.protocols=TLSv1.1,TLSv1.2\n":                                                    `client.properties:2: ssl.enabled.protocols = "TLSv1.1,TLSv1.2": Go speaks TLS 1.2 and 1.3 only`,
		"security.protocol=TLS\n": `client.properties:1: security.protocol = "TLS": must be PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL`,
		"sasl.mechanism=PLAIN\n":  `client.properties:1: sasl.mechanism = "PLAIN": applies only with security.protocol SASL_PLAINTEXT or SASL_SSL`,
		"security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\nsasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username=\"u\" password=\"hunter2\";\n":                       `client.properties:3: sasl.jaas.config = "<secret>": login module org.apache.kafka.common.security.scram.ScramLoginModule does not serve sasl.mechanism PLAIN`,
		"security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\nsasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"hunter2\"\n":                        `client.properties:3: sasl.jaas.config = "<secret>": must end with ';'`,
		"security.protocol=SASL_SSL\nsasl.mechanism=OAUTHBEARER\nsasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required clientId=\"c\" clientSecret=\"hunter2\";\n": `client.properties:3: sasl.jaas.config = "<secret>": option clientSecret: the token endpoint's secret is read from a file`,
		"security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\nsasl.login.callback.handler.class=org.example.Handler\n":                                                                                        `client.properties:3: sasl.login.callback.handler.class = "org.example.Handler": names a Java class`,
	} {
		_, err := loadWith(t, yamlText, props)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("properties %q:\n got %v\nwant …%s…", props, err, want)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("the error shows the password: %v", err)
		}
	}
	if _, err := loadWith(t, "kafka: {properties_file: client.properties}\n", "linger.ms=5\n"); err == nil || !strings.Contains(err.Error(), "sets linger.ms, a producer or consumer key, which applies to the probes of the configuration file, and it lists none") {
		t.Errorf("producer keys without probes: %v", err)
	}
	if _, err := Parse([]byte(yamlText)); err == nil || !strings.Contains(err.Error(), `kafka.properties_file = "client.properties": is read when the configuration is loaded from a file`) {
		t.Errorf("Parse with a properties file: %v", err)
	}
	if _, err := LoadFile(filepath.Join(t.TempDir(), "missing.yml")); err == nil {
		t.Error("Load of a missing file: no error")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "c.yml")
	if err := os.WriteFile(path, []byte("kafka: {properties_file: nope.properties}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadFile(path); err == nil || !strings.Contains(err.Error(), `kafka.properties_file = "nope.properties"`) {
		t.Errorf("a missing properties file: %v", err)
	}
}

// parseJAAS reads sasl.jaas.config as Kafka's JaasConfig does (Java's
// StreamTokenizer): the results are those of JaasContext.loadClientContext
// of kafka-clients 4.4.0 on the same lines.
func TestParseJAAS(t *testing.T) {
	const m = "org.apache.kafka.common.security.plain.PlainLoginModule"
	for in, want := range map[string][]jaasOption{
		m + ` required username='alice' password='a\'b';`: {{"username", "alice"}, {"password", "a'b"}},
		m + ` REQUIRED u="x";`:                            {{"u", "x"}},
		m + ` Required u=x;`:                              {{"u", "x"}},
		m + ` required u="a\"b\\c";`:                      {{"u", `a"b\c`}},
		m + ` required u="tab\there";`:                    {{"u", "tab\there"}},
		m + ` required /* comment */ u="x"; // trailing`:  {{"u", "x"}},
		m + ` required /*/ u="no" */ u="x"; /**/`:         {{"u", "x"}},
		m + " required\n  / a comment\n  u=\"x\";":        {{"u", "x"}},
		m + ` required u="x" ;`:                           {{"u", "x"}},
		m + ` required;`:                                  nil,
		m + ` required u=x-y.z_1$;`:                       {{"u", "x-y.z_1$"}},
		m + ` required u = "x";`:                          {{"u", "x"}},
		`"` + m + `" required u="x";`:                     {{"u", "x"}},
		m + ` required u="\101\q";`:                       {{"u", "Aq"}},
		m + ` required u='';`:                             {{"u", ""}},
		m + ` required u=é;`:                              {{"u", "é"}},
		m + ` required "k k"="v";`:                        {{"k k", "v"}},
		m + " optional\n  u=\"x\"\n  p='y';":              {{"u", "x"}, {"p", "y"}},
		m + ` sufficient u="p@ss w=rd;";`:                 {{"u", "p@ss w=rd;"}},
		m + ` requisite u='say "hi"' v="it's";`:           {{"u", `say "hi"`}, {"v", "it's"}},
	} {
		module, got, err := parseJAAS(in)
		if err != nil || module != m || !reflect.DeepEqual(got, want) {
			t.Errorf("parseJAAS(%s) = %s %q, %v; want %s %q", in, module, got, err, m, want)
		}
	}
	// What Kafka refuses; the errors never quote the line's values.
	for _, in := range []string{
		m + ` required u=hunter2@x;`, // a value to quote
		m + ` required u=12345;`,     // a number, not a word
		m + ` required u=-hunter2;`,
		m + ` required u="x"; N required v="y";`,
		m + ` bogus u="x";`,
		m + ` required u="x" hunter2;`,
		m + ` required u="hunter2;`,
		m + ` required u="x"`,
		m + ` required u=a/hunter2;`,
		m + ` required u="x";;`,
		``, `  `, `/* only */`, m,
	} {
		if _, _, err := parseJAAS(in); err == nil || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("parseJAAS(%s) = %v, want an error without the value", in, err)
		}
	}
}

// A JAAS line as Kafka reads it: single quotes, a flag in capitals; a login
// module is named by its exact class, as Kafka loads it.
func TestPropertiesFileJAAS(t *testing.T) {
	const yamlText = "kafka: {properties_file: client.properties}\nprobes: [{name: a}]\n"
	cfg, err := loadWith(t, yamlText, `security.protocol=SASL_SSL
sasl.mechanism=SCRAM-SHA-256
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule REQUIRED username='alice' password='s3cr3t';
`)
	if err != nil {
		t.Fatal(err)
	}
	if s := cfg.Kafka.SASL; s.Username != "alice" || s.Password.Reveal() != "s3cr3t" {
		t.Errorf("kafka.sasl = %q / %q, want alice / s3cr3t", s.Username, s.Password.Reveal())
	}
	for props, want := range map[string]string{
		"security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\nsasl.jaas.config=foo.PlainLoginModule required username=\"u\" password=\"hunter2\";\n": `sasl.jaas.config = "<secret>": login module foo.PlainLoginModule does not serve sasl.mechanism PLAIN: its login module is org.apache.kafka.common.security.plain.PlainLoginModule`,
		"security.protocol=SASL_SSL\nsasl.mechanism=OAUTHBEARER\nsasl.login.callback.handler.class=org.example.OAuthBearerLoginCallbackHandler\n": `sasl.login.callback.handler.class = "org.example.OAuthBearerLoginCallbackHandler": names a Java class`,
	} {
		if _, err := loadWith(t, yamlText, props); err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("properties %q:\n got %v\nwant …%s…", props, err, want)
		}
	}
}

func FuzzParseJAAS(f *testing.F) {
	for _, s := range []string{`M required u="x";`, `M REQUIRED u='a\'b' /* c */ v=w;`, `M required u="\101`, "M required // x\n;", "-.5 /"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		module, _, err := parseJAAS(s)
		if err == nil && module == "" && !strings.Contains(s, `""`) && !strings.Contains(s, "''") {
			t.Fatalf("parseJAAS(%q): no module and no error", s)
		}
	})
}

// Trailing blanks are trimmed from every value, as Kafka's ConfigDef trims
// what it parses (a password too): linger.ms=5 with a blank after it is 5
// to every Java client, and changeit with one the truststore's password.
func TestPropertiesFileTrimsAsKafka(t *testing.T) {
	cfg, err := loadWith(t, "kafka: {properties_file: client.properties}\nprobes: [{name: a}]\n",
		"security.protocol=SSL \nssl.truststore.type=PKCS12\t\nssl.truststore.location=t.p12 \nssl.truststore.password=changeit\\ \nlinger.ms=5 \nclient.id=bench\\t\nacks=all \n")
	if err != nil {
		t.Fatal(err)
	}
	tl, p := cfg.Kafka.TLS, cfg.Probes[0].Producer
	if tl.TruststorePassword.Reveal() != "changeit" || filepath.Base(tl.TruststoreFile) != "t.p12" || tl.TruststoreType != "PKCS12" ||
		p.LingerMS != 5 || p.Acks != "all" || cfg.Kafka.ClientID != "bench" {
		t.Errorf("kafka.tls = %+v (password %q), linger.ms %d, acks %q, client_id %q", tl, tl.TruststorePassword.Reveal(), p.LingerMS, p.Acks, cfg.Kafka.ClientID)
	}
}

// The YAML's password_file or password_env wins over the properties
// file's JAAS password, as its password does: the YAML is this exporter's
// choice (and so for kafka.tls's store passwords).
func TestPropertiesFileYAMLPasswordWins(t *testing.T) {
	const props = `security.protocol=SASL_SSL
sasl.mechanism=SCRAM-SHA-512
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="bench" password="from-file";
ssl.truststore.type=PKCS12
ssl.truststore.location=t.p12
ssl.truststore.password=from-file
`
	for _, yamlSASL := range []string{"password_env: BENCH_PW", "password_file: pw.txt", "password: from-yaml"} {
		cfg, err := loadWith(t, "kafka:\n  properties_file: client.properties\n  sasl: {"+yamlSASL+"}\n  tls: {truststore_password_env: TRUST_PW}\nprobes: [{name: a}]\n", props)
		if err != nil {
			t.Errorf("kafka.sasl.%s: %v", yamlSASL, err)
			continue
		}
		s, tl := cfg.Kafka.SASL, cfg.Kafka.TLS
		if s.Username != "bench" || s.Password.Reveal() == "from-file" || tl.TruststorePassword != "" || tl.TruststorePasswordEnv != "TRUST_PW" {
			t.Errorf("kafka.sasl.%s: the file's password is kept: sasl %+v, tls %+v", yamlSASL, s, tl)
		}
	}
}

// AWS_MSK_IAM as Amazon's aws-msk-iam-auth client.properties gives it: the
// IAMLoginModule's options are kafka.sasl.aws's.
func TestPropertiesFileAWSMSKIAM(t *testing.T) {
	cfg, err := loadWith(t, "kafka: {properties_file: client.properties}\nprobes: [{name: a}]\n", `bootstrap.servers=b-1.msk.example:9098
security.protocol=SASL_SSL
sasl.mechanism=AWS_MSK_IAM
sasl.jaas.config=software.amazon.msk.auth.iam.IAMLoginModule required awsProfileName="bench" awsRoleArn="arn:aws:iam::123456789012:role/kafka-bench" awsRoleSessionName="bench-1" awsStsRegion="eu-west-1";
sasl.client.callback.handler.class=software.amazon.msk.auth.iam.IAMClientCallbackHandler
`)
	if err != nil {
		t.Fatal(err)
	}
	if s := cfg.Kafka.SASL; s.Mechanism != "AWS_MSK_IAM" || s.AWS.Profile != "bench" || s.AWS.RoleARN != "arn:aws:iam::123456789012:role/kafka-bench" ||
		s.AWS.SessionName != "bench-1" || s.AWS.Region != "eu-west-1" || !cfg.Kafka.TLS.Enabled {
		t.Errorf("kafka.sasl = %+v", s)
	}
	for props, want := range map[string]string{
		"security.protocol=SASL_SSL\nsasl.mechanism=AWS_MSK_IAM\nsasl.jaas.config=foo.IAMLoginModule required;\n":                                      `login module foo.IAMLoginModule does not serve sasl.mechanism AWS_MSK_IAM: its login module is software.amazon.msk.auth.iam.IAMLoginModule`,
		"security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\nsasl.client.callback.handler.class=software.amazon.msk.auth.iam.IAMClientCallbackHandler\n": `sasl.client.callback.handler.class = "software.amazon.msk.auth.iam.IAMClientCallbackHandler": names a Java class`,
	} {
		if _, err := loadWith(t, "kafka: {properties_file: client.properties}\nprobes: [{name: a}]\n", props); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("properties %q:\n got %v\nwant …%s…", props, err, want)
		}
	}
}
