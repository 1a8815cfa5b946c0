package config

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The replica block: defaults, the copy's name under each policy, files
// relative to the configuration file, the secret redacted, and one-line
// errors that name the replica's keys.
func TestReplicaConfig(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "pw"), "replica-pw\n")
	file := filepath.Join(dir, "config.yml")
	writeFile(t, file, `
kafka: {brokers: [127.0.0.1:9092]}
probes:
  - name: dr
    replica:
      kafka:
        brokers: [127.0.0.1:9192]
        sasl: {mechanism: SCRAM-SHA-256, username: mirror, password_file: pw}
      source_alias: primary
  - name: plain
`)
	res, err := loadResolved(file)
	if err != nil {
		t.Fatal(err)
	}
	cfg := res.Config
	r := cfg.Probes[0].Replica
	if r == nil || cfg.Probes[1].Replica != nil {
		t.Fatalf("replica blocks: %+v, %+v", cfg.Probes[0].Replica, cfg.Probes[1].Replica)
	}
	// The password is read from pw next to the config file: as the kafka
	// block's settings would read it.
	want, err := ResolveKafka(Kafka{SASL: r.Kafka.SASL}, dir)
	if err != nil || want.SASL() == nil || !reflect.DeepEqual(res.Probes[0].Replica.SASL(), want.SASL()) {
		t.Errorf("replica password material %#v, want %#v (%v)", res.Probes[0].Replica.SASL(), want.SASL(), err)
	}
	if r.Kafka.ClientID != DefaultClientID || r.TargetAlias != DefaultTargetAlias || r.TopicPolicy != TopicPolicyDefault ||
		time.Duration(r.LossGracePeriod) != DefaultReplicaLossWait {
		t.Errorf("defaults not filled: %+v", r)
	}
	if got := r.Link(); got != "primary->target" {
		t.Errorf("Link = %q", got)
	}
	if got := r.TopicFor("kafka-bench-dr"); got != "primary.kafka-bench-dr" {
		t.Errorf("default policy: TopicFor = %q", got)
	}
	r.TopicPolicy = TopicPolicyIdentity
	if got := r.TopicFor("kafka-bench-dr"); got != "kafka-bench-dr" {
		t.Errorf("identity policy: TopicFor = %q", got)
	}
	r.Topic = "explicit"
	if got := r.TopicFor("kafka-bench-dr"); got != "explicit" {
		t.Errorf("explicit topic: TopicFor = %q", got)
	}
	out, err := cfg.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "replica-pw") {
		t.Errorf("--config.check output shows the replica password:\n%s", out)
	}

	for body, want := range map[string]string{
		`{source_alias: A}`: `probe "dr": replica.kafka.brokers = "": must list the target cluster's brokers`,
		`{kafka: {brokers: [b:9092]}, topic_policy: prefix}`:                              `probe "dr": replica.topic_policy = "prefix": must be "default"`,
		`{kafka: {brokers: [b:9092]}, source_alias: "a b"}`:                               `probe "dr": replica.source_alias = "a b": must be non-empty`,
		`{kafka: {brokers: [b:9092]}, loss_grace_period: 0s}`:                             `probe "dr": replica.loss_grace_period = 0s: must be > 0`,
		`{kafka: {brokers: [b:9092], tls: {enabled: true, ca_file: missing.pem}}}`:        `probe "dr": replica.kafka.tls.ca_file = "missing.pem": cannot read`,
		`{kafka: {brokers: [b:9092], sasl: {mechanism: PLAIN, username: u}}}`:             `probe "dr": replica.kafka.sasl.password = "": set exactly one of`,
		`{kafka: {brokers: [b:9092]}, topic_polcy: identity}`:                             `probe "dr": replica.topic_polcy = "identity": unknown key`,
		`{kafka: {brokers: [b:9092], sasl: {mechanism: PLAIN, username: u, pasword: x}}}`: `probe "dr": replica.kafka.sasl.pasword = <secret>: unknown key`,
	} {
		cfg, err := Parse([]byte("probes:\n  - name: dr\n    replica: " + body + "\n"))
		if err == nil {
			_, err = Resolve(cfg, "")
		}
		if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("replica %s: error %v, want one line starting %q", body, err, want)
		}
	}
}
