package deploy

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/kafka-bench/kafka_bench_exporter/sasl"
)

// kafkaSASL.mechanism offers exactly the mechanisms the exporter accepts
// (and "", no SASL): a mechanism added to package sasl appears here or this fails.
func TestHelmSchemaSASLMechanisms(t *testing.T) {
	var schema struct {
		Properties struct {
			KafkaSASL struct {
				Properties struct {
					Mechanism struct {
						Enum []string `json:"enum"`
					} `json:"mechanism"`
				} `json:"properties"`
			} `json:"kafkaSASL"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(readFile(t, repoPath(t, ChartDir+"/values.schema.json")), &schema); err != nil {
		t.Fatal(err)
	}
	got := slices.Sorted(slices.Values(schema.Properties.KafkaSASL.Properties.Mechanism.Enum))
	want := slices.Sorted(slices.Values(append(sasl.Names(), "")))
	if !slices.Equal(got, want) {
		t.Errorf("values.schema.json kafkaSASL.mechanism enum %q, want the exporter's mechanisms and \"\": %q", got, want)
	}
}

// saslCase is one way to configure SASL through kafkaSASL.
type saslCase struct {
	name, mechanism string
	flags           []string
	// secret is the Secret mounted as kafka-sasl; "" for none.
	secret string
	// config are lines config.yml must hold.
	config []string
}

var saslCases = []saslCase{
	{name: "PLAIN", mechanism: sasl.PLAIN,
		flags:  []string{"--set", "kafkaSASL.username=kafka-bench", "--set", "kafkaSASL.passwordSecret.name=kafka-bench-user"},
		secret: "kafka-bench-user", config: []string{"username: kafka-bench", "password_file: " + secretsPrefix + "/sasl/password"}},
	{name: "SCRAM-SHA-256", mechanism: sasl.ScramSHA256,
		flags:  []string{"--set", "kafkaSASL.username=kafka-bench", "--set", "kafkaSASL.passwordSecret.name=kafka-bench-scram"},
		secret: "kafka-bench-scram", config: []string{"password_file: " + secretsPrefix + "/sasl/password"}},
	{name: "SCRAM-SHA-512", mechanism: sasl.ScramSHA512,
		flags:  []string{"--set", "kafkaSASL.username=kafka-bench", "--set", "kafkaSASL.passwordSecret.name=kafka-bench-scram"},
		secret: "kafka-bench-scram", config: []string{"password_file: " + secretsPrefix + "/sasl/password"}},
	{name: "OAUTHBEARER client credentials", mechanism: sasl.OAuthBearer,
		flags: []string{"--set", "kafkaSASL.oauth.tokenEndpoint=https://idp.example/token", "--set", "kafkaSASL.oauth.clientId=bench",
			"--set", "kafkaSASL.oauth.clientSecretSecret.name=kafka-bench-oauth", "--set", "kafkaSASL.oauth.scope=kafka"},
		secret: "kafka-bench-oauth", config: []string{"token_endpoint: https://idp.example/token", "client_id: bench", "scope: kafka",
			"client_secret_file: " + secretsPrefix + "/sasl/client-secret"}},
	{name: "OAUTHBEARER token file", mechanism: sasl.OAuthBearer,
		flags: []string{"--set", "kafkaSASL.oauth.tokenSecret.name=kafka-bench-token",
			"--set-json", `kafkaSASL.oauth.extensions={"logicalCluster":"lkc-1"}`},
		secret: "kafka-bench-token", config: []string{"token_file: " + secretsPrefix + "/sasl/token", "logicalCluster: lkc-1"}},
	{name: "GSSAPI", mechanism: sasl.GSSAPI,
		flags:  []string{"--set", "kafkaSASL.username=kafka-bench", "--set", "kafkaSASL.kerberos.secret.name=kafka-bench-keytab", "--set", "kafkaSASL.kerberos.serviceName=kafka"},
		secret: "kafka-bench-keytab", config: []string{"keytab_file: " + secretsPrefix + "/sasl/keytab", "config_file: " + secretsPrefix + "/sasl/krb5.conf"}},
	// No Secret: the credentials come from the pod's AWS chain (on EKS
	// through the ServiceAccount: IRSA's role-arn annotation or a Pod
	// Identity association).
	{name: "AWS_MSK_IAM", mechanism: sasl.AWSMSKIAM,
		flags: []string{"--set", "kafkaSASL.aws.region=eu-west-1", "--set", "kafkaSASL.aws.roleArn=arn:aws:iam::123456789012:role/kafka-bench",
			"--set", "kafkaSASL.aws.sessionName=kafka-bench"},
		config: []string{"region: eu-west-1", "role_arn: arn:aws:iam::123456789012:role/kafka-bench", "session_name: kafka-bench"}},
}

// Every mechanism the exporter accepts can be set through kafkaSASL: the
// chart renders it, mounts its Secret, and the exporter's --config.check
// accepts the config.yml and files of the pod (chartExporter).
func TestHelmEverySASLMechanism(t *testing.T) {
	for _, m := range sasl.Names() {
		if !slices.ContainsFunc(saslCases, func(c saslCase) bool { return c.mechanism == m }) {
			t.Errorf("mechanism %s of the exporter has no case here: make kafkaSASL offer it (values.yaml, values.schema.json, _helpers.tpl) and add one", m)
		}
	}
	for _, c := range saslCases {
		t.Run(c.name, func(t *testing.T) {
			flags := append([]string{"--set", "config.kafka.brokers={kafka:9093}", "--set", "kafkaSASL.mechanism=" + c.mechanism}, c.flags...)
			ms := helmTemplate(t, c.name, flags...)
			d := chartExporter(t, ms)
			var secret string
			for _, v := range getList(d.pod, "volumes") {
				if getString(v, "name") == "kafka-sasl" {
					secret = getString(v, "secret", "secretName")
				}
			}
			if secret != c.secret {
				t.Errorf("kafka-sasl volume from Secret %q, want %q (volumes %v)", secret, c.secret, getList(d.pod, "volumes"))
			}
			cm := getString(one(t, ms, "ConfigMap", "").doc, "data", "config.yml")
			for _, want := range append([]string{"mechanism: " + c.mechanism}, c.config...) {
				if !strings.Contains(cm, want) {
					t.Errorf("config.yml lacks %q:\n%s", want, cm)
				}
			}
		})
	}
}

// An OAuth token endpoint and a token file at once are refused by name.
func TestHelmOAuthEndpointAndTokenFile(t *testing.T) {
	_, stderr, err := helm(t, "template", release, ChartDir, "--set", "config.kafka.brokers={kafka:9093}", "--set", "kafkaSASL.mechanism=OAUTHBEARER",
		"--set", "kafkaSASL.oauth.tokenEndpoint=https://idp.example/token", "--set", "kafkaSASL.oauth.tokenSecret.name=kafka-bench-token")
	if err == nil || !strings.Contains(stderr, "kafkaSASL.oauth: set tokenEndpoint (client credentials) or tokenSecret.name (a token file), not both") {
		t.Errorf("helm template: %v\n%s\nwant the refusal of tokenEndpoint with tokenSecret", err, stderr)
	}
}
