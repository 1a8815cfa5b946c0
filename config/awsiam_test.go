package config

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// AWS_MSK_IAM: everything optional; mistakes are one line naming the key.
func TestAWSConfig(t *testing.T) {
	dir := t.TempDir()
	load := func(sasl string) (*Resolved, error) {
		file := filepath.Join(dir, "config.yml")
		writeFile(t, file, fmt.Sprintf("kafka:\n  brokers: [b-1.msk.example:9098]\n  tls: {enabled: true}\n  sasl: %s\n", sasl))
		return loadResolved(file)
	}
	for _, ok := range []string{
		`{mechanism: AWS_MSK_IAM}`,
		`{mechanism: AWS_MSK_IAM, aws: {region: eu-west-1, profile: bench, role_arn: "arn:aws:iam::123456789012:role/kafka-bench", session_name: bench-1}}`,
	} {
		if _, err := load(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for sasl, want := range map[string]string{
		`{mechanism: AWS_MSK_IAM, username: a}`:                                          `kafka.sasl.username = "a": not used with mechanism AWS_MSK_IAM: the AWS credentials name the principal`,
		`{mechanism: AWS_MSK_IAM, password_file: pw}`:                                    `kafka.sasl.password_file = "pw": not used with mechanism AWS_MSK_IAM`,
		`{mechanism: AWS_MSK_IAM, aws: {region: europe}}`:                                `kafka.sasl.aws.region = "europe": not an AWS region such as us-east-1`,
		`{mechanism: AWS_MSK_IAM, aws: {role_arn: "kafka-bench"}}`:                       `kafka.sasl.aws.role_arn = "kafka-bench": not an IAM role ARN such as arn:aws:iam::123456789012:role/kafka-bench`,
		`{mechanism: AWS_MSK_IAM, aws: {session_name: s1}}`:                              `kafka.sasl.aws.session_name = "s1": only with role_arn`,
		`{mechanism: SCRAM-SHA-512, username: a, password: b, aws: {region: eu-west-1}}`: `kafka.sasl.aws = "": only with mechanism AWS_MSK_IAM, not SCRAM-SHA-512`,
		`{aws: {region: eu-west-1}}`:                                                     `kafka.sasl.mechanism = "": must be AWS_MSK_IAM when kafka.sasl.aws is set`,
	} {
		if _, err := load(sasl); err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("sasl %s:\n got: %v\nwant: …%s", sasl, err, want)
		}
	}
}
