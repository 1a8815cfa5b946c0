package sasl

import (
	"context"
	"fmt"
	"regexp"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	kgosasl "github.com/twmb/franz-go/pkg/sasl"
	kaws "github.com/twmb/franz-go/pkg/sasl/aws"
)

// AWSMSKIAM is Amazon MSK's IAM mechanism (kafka.sasl.aws).
const AWSMSKIAM = "AWS_MSK_IAM"

// userAgent names the exporter in the signed requests.
const userAgent = "kafka_bench_exporter"

type awsMechanism struct{}

func (awsMechanism) names() []string                { return []string{AWSMSKIAM} }
func (awsMechanism) kinds() []string                { return nil }
func (awsMechanism) block(c *Config) (string, bool) { return "aws", c.AWS.set() }

func (awsMechanism) validate(c *Config) error {
	if err := c.noPassword("the AWS credentials name the principal", "credentials come from the AWS chain"); err != nil {
		return err
	}
	return c.AWS.validate()
}

// resolve reads nothing: the AWS chain is read when a client connects.
func (awsMechanism) resolve(c *Config, _ Reader) (Material, error) {
	return awsMaterial{settings: c.AWS}, nil
}

type awsMaterial struct{ settings AWS }

// AWS configures AWS_MSK_IAM (kafka.sasl.aws). Credentials come from the
// standard AWS chain: environment, shared config and credentials files
// (profile), web identity (IRSA), EKS Pod Identity and instance roles; no
// secret is ever in this file.
type AWS struct {
	// Region is where STS is asked (role, web identity); empty: the
	// chain's (AWS_REGION, the profile). Requests are signed for the
	// region in the broker host name (MSK's names carry it), else this one.
	Region string `yaml:"region" default:"(the AWS chain's)" doc:"AWS_MSK_IAM: region of STS and of the signature when the broker host names none"`
	// Profile of the shared config files; empty: AWS_PROFILE or default.
	Profile string `yaml:"profile" default:"({AWS_PROFILE}, else {default})" doc:"profile of the shared AWS config and credentials files"`
	// RoleARN, when set, is assumed with the chain's credentials.
	RoleARN     string `yaml:"role_arn" doc:"an IAM role assumed with the chain's credentials"`
	SessionName string `yaml:"session_name" doc:"the session name of the assumed role"`
}

var (
	roleARN    = regexp.MustCompile(`^arn:aws[a-z-]*:iam::\d{12}:role/[\w+=,.@/-]+$`)
	awsRegion  = regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-\d+$`)
	stsSession = regexp.MustCompile(`^[\w+=,.@-]{2,64}$`)
)

func (a *AWS) set() bool {
	return a.Region != "" || a.Profile != "" || a.RoleARN != "" || a.SessionName != ""
}

func (a *AWS) validate() error {
	const p = "aws."
	switch {
	case a.Region != "" && !awsRegion.MatchString(a.Region):
		return fieldError(p+"region", a.Region, "not an AWS region such as us-east-1")
	case a.RoleARN != "" && !roleARN.MatchString(a.RoleARN):
		return fieldError(p+"role_arn", a.RoleARN, "not an IAM role ARN such as arn:aws:iam::123456789012:role/kafka-bench")
	case a.SessionName != "" && a.RoleARN == "":
		return fieldError(p+"session_name", a.SessionName, "only with role_arn")
	case a.SessionName != "" && !stsSession.MatchString(a.SessionName):
		return fieldError(p+"session_name", a.SessionName, "must be 2-64 letters, digits and +=,.@-_")
	}
	return nil
}

// AWSCredentialsError is AWS credentials that could not be had (no
// credentials in the chain, a role that cannot be assumed) or that expired:
// probes report it as an authentication failure.
type AWSCredentialsError struct {
	Err error
}

func (e *AWSCredentialsError) Error() string {
	return fmt.Sprintf("AWS credentials for AWS_MSK_IAM: %v", e.Err)
}

func (e *AWSCredentialsError) Unwrap() error { return e.Err }

func (*AWSCredentialsError) credentials() {}

// Mechanism is the AWS_MSK_IAM mechanism: each authentication signs with
// the current credentials of the standard AWS chain (environment, shared
// files, web identity for IRSA, EKS Pod Identity, instance roles), cached
// and refreshed by the SDK before they expire, or of the role assumed with
// them.
func (m awsMaterial) Mechanism(Runtime) (kgosasl.Mechanism, error) {
	return newAWSIAM(m.settings, userAgent)
}

func newAWSIAM(a AWS, userAgent string) (kgosasl.Mechanism, error) {
	var opts []func(*awsconfig.LoadOptions) error
	if a.Region != "" {
		opts = append(opts, awsconfig.WithRegion(a.Region))
	}
	if a.Profile != "" {
		opts = append(opts, awsconfig.WithSharedConfigProfile(a.Profile))
	}
	cfg, err := awsconfig.LoadDefaultConfig(context.Background(), opts...)
	if err != nil {
		return nil, fmt.Errorf("kafka.sasl.aws: loading the AWS configuration: %w", err)
	}
	creds := cfg.Credentials
	if a.RoleARN != "" {
		creds = aws.NewCredentialsCache(stscreds.NewAssumeRoleProvider(sts.NewFromConfig(cfg), a.RoleARN,
			func(o *stscreds.AssumeRoleOptions) {
				if a.SessionName != "" {
					o.RoleSessionName = a.SessionName
				}
			}))
	}
	return awsIAMMechanism(creds, userAgent), nil
}

func awsIAMMechanism(creds aws.CredentialsProvider, userAgent string) kgosasl.Mechanism {
	return kaws.ManagedStreamingIAM(func(ctx context.Context) (kaws.Auth, error) {
		if creds == nil {
			return kaws.Auth{}, &AWSCredentialsError{Err: fmt.Errorf("none found in the environment, shared files or the instance")}
		}
		c, err := creds.Retrieve(ctx)
		if err != nil {
			return kaws.Auth{}, &AWSCredentialsError{Err: err}
		}
		// A signature with expired credentials is refused by the broker;
		// say why here rather than leave a bare authentication failure.
		if c.CanExpire && !c.Expires.After(time.Now()) {
			return kaws.Auth{}, &AWSCredentialsError{Err: fmt.Errorf("the credentials of %s expired at %s", c.Source, c.Expires.UTC().Format(time.RFC3339))}
		}
		return kaws.Auth{AccessKey: c.AccessKeyID, SecretKey: c.SecretAccessKey, SessionToken: c.SessionToken, UserAgent: userAgent}, nil
	})
}
