package kclient

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/twmb/franz-go/pkg/sasl"
	kaws "github.com/twmb/franz-go/pkg/sasl/aws"

	"github.com/kafka-bench/kafka_bench_exporter/config"
)

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

// newAWSIAM is the AWS_MSK_IAM mechanism: each authentication signs with
// the current credentials of the standard AWS chain (environment, shared
// files, web identity for IRSA, EKS Pod Identity, instance roles), cached
// and refreshed by the SDK before they expire, or of the role assumed with
// them.
func newAWSIAM(a config.AWS, userAgent string) (sasl.Mechanism, error) {
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
	return awsMechanism(creds, userAgent), nil
}

func awsMechanism(creds aws.CredentialsProvider, userAgent string) sasl.Mechanism {
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
