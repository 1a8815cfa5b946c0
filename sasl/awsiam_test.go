package sasl

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
)

// Credentials that say they expired are not sent at all: the
// authentication fails, as an authentication failure that says why.
func TestExpiredAWSCredentialsNotSent(t *testing.T) {
	m := awsIAMMechanism(credentials.StaticCredentialsProvider{Value: aws.Credentials{AccessKeyID: "ASIABENCHEXPIRED01",
		SecretAccessKey: "expired-secret", SessionToken: "old-token", Source: "test", CanExpire: true, Expires: time.Now().Add(-time.Minute)}}, "")
	_, _, err := m.Authenticate(context.Background(), "127.0.0.1:9098")
	var ae *AWSCredentialsError
	if !errors.As(err, &ae) || !IsAuthError(err) || !strings.Contains(err.Error(), "expired at") {
		t.Errorf("expired credentials: %v", err)
	}
}
