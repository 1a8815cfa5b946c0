package sasl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
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

// AWS_MSK_IAM: everything optional; mistakes are one line naming the key.
func TestAWSSettings(t *testing.T) {
	dir := t.TempDir()
	for _, ok := range []string{
		`{mechanism: AWS_MSK_IAM}`,
		`{mechanism: AWS_MSK_IAM, aws: {region: eu-west-1, profile: bench, role_arn: "arn:aws:iam::123456789012:role/kafka-bench", session_name: bench-1}}`,
	} {
		if _, _, err := loadSASL(dir, ok); err != nil {
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
		if _, _, err := loadSASL(dir, sasl); err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("sasl %s:\n got: %v\nwant: …%s", sasl, err, want)
		}
	}
}

// mskStub is a loopback broker (kfake) that answers SaslHandshake and
// SaslAuthenticate for AWS_MSK_IAM as MSK does, checking the signed payload
// with AWS's own SigV4 signer: the request must be signed for the stub's
// region with a known key, recently, and that key must not have expired.
type mskStub struct {
	c      *kfake.Cluster
	region string
	mu     sync.Mutex
	keys   map[string]aws.Credentials // by access key id
	last   string                     // why the last authentication failed
	okKey  string                     // the access key of the last one that succeeded
}

func newMSKStub(t *testing.T, region string) *mskStub {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	s := &mskStub{c: c, region: region, keys: map[string]aws.Credentials{}}
	c.ControlKey(kmsg.SASLHandshake.Int16(), func(r kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		req := r.(*kmsg.SASLHandshakeRequest)
		resp := req.ResponseKind().(*kmsg.SASLHandshakeResponse)
		resp.SupportedMechanisms = []string{"AWS_MSK_IAM"}
		if req.Mechanism != "AWS_MSK_IAM" {
			resp.ErrorCode = kerr.UnsupportedSaslMechanism.Code
		}
		return resp, nil, true
	})
	c.ControlKey(kmsg.SASLAuthenticate.Int16(), func(r kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		req := r.(*kmsg.SASLAuthenticateRequest)
		resp := req.ResponseKind().(*kmsg.SASLAuthenticateResponse)
		if err := s.verify(req.SASLAuthBytes); err != nil {
			s.mu.Lock()
			s.last = err.Error()
			s.mu.Unlock()
			resp.ErrorCode = kerr.SaslAuthenticationFailed.Code
			msg := "[" + err.Error() + "]"
			resp.ErrorMessage = &msg
			// The refusal is the response's error code; a non-nil error
			// would make kfake drop the connection instead.
			return resp, nil, true //nolint:nilerr
		}
		var p map[string]string
		_ = json.Unmarshal(req.SASLAuthBytes, &p) // verify parsed it already
		s.mu.Lock()
		s.okKey, _, _ = strings.Cut(p["x-amz-credential"], "/")
		s.mu.Unlock()
		resp.SASLAuthBytes = []byte(`{"version":"2020_10_22","request-id":"stub"}`)
		resp.SessionLifetimeMillis = int64(time.Hour / time.Millisecond)
		return resp, nil, true
	})
	return s
}

func (s *mskStub) lastErr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

func (s *mskStub) lastKey() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.okKey
}

func (s *mskStub) addr() string { return s.c.ListenAddrs()[0] }

func (s *mskStub) allow(c aws.Credentials) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keys[c.AccessKeyID] = c
}

func (s *mskStub) verify(payload []byte) error {
	var p map[string]string
	if err := json.Unmarshal(payload, &p); err != nil {
		return fmt.Errorf("payload is not JSON: %w", err)
	}
	if p["version"] != "2020_10_22" || p["action"] != "kafka-cluster:Connect" || p["x-amz-algorithm"] != "AWS4-HMAC-SHA256" ||
		p["x-amz-signedheaders"] != "host" || p["x-amz-expires"] != "900" {
		return fmt.Errorf("unexpected fields %v", p)
	}
	host, _, _ := net.SplitHostPort(s.addr())
	if p["host"] != host {
		return fmt.Errorf("host %q, want %q", p["host"], host)
	}
	cred := strings.Split(p["x-amz-credential"], "/")
	if len(cred) != 5 || cred[3] != "kafka-cluster" || cred[4] != "aws4_request" {
		return fmt.Errorf("credential scope %q", p["x-amz-credential"])
	}
	if cred[2] != s.region {
		return fmt.Errorf("signed for region %s, this cluster is in %s", cred[2], s.region)
	}
	s.mu.Lock()
	key, ok := s.keys[cred[0]]
	s.mu.Unlock()
	if !ok {
		return fmt.Errorf("unknown access key %s", cred[0])
	}
	signed, err := time.Parse("20060102T150405Z", p["x-amz-date"])
	if err != nil || time.Since(signed).Abs() > 5*time.Minute {
		return fmt.Errorf("x-amz-date %q is not now", p["x-amz-date"])
	}
	if key.CanExpire && !key.Expires.After(signed) {
		return errors.New("ExpiredToken: the security token included in the request is expired")
	}
	if p["x-amz-security-token"] != key.SessionToken {
		return errors.New("the security token does not belong to the access key")
	}
	// Sign the same request with AWS's signer and compare.
	q := url.Values{"Action": {"kafka-cluster:Connect"}, "X-Amz-Expires": {"900"}}
	req, err := http.NewRequest(http.MethodGet, "https://"+host+"/?"+q.Encode(), nil)
	if err != nil {
		return err
	}
	const emptyBody = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	presigned, _, err := v4.NewSigner().PresignHTTP(context.Background(), key, req, emptyBody, "kafka-cluster", s.region, signed)
	if err != nil {
		return err
	}
	u, err := url.Parse(presigned)
	if err != nil {
		return err
	}
	if want := u.Query().Get("X-Amz-Signature"); p["x-amz-signature"] != want {
		return fmt.Errorf("signature %s, AWS's signer makes %s", p["x-amz-signature"], want)
	}
	return nil
}

// isolateAWS points the AWS chain at nothing but what the test sets.
func isolateAWS(t *testing.T) {
	dir := t.TempDir()
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_DEFAULT_REGION",
		"AWS_ROLE_ARN", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"} {
		t.Setenv(k, "") // restored after the test
		if err := os.Unsetenv(k); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
}

// pingWith pings the stub with a client authenticating with settings c.
func pingWith(t *testing.T, s *mskStub, c Config) error {
	t.Helper()
	m := resolve(t, c, t.TempDir())
	mech, err := m.Mechanism(&testRuntime{})
	if err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(s.addr()), kgo.SASL(mech))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return cl.Ping(ctx)
}

// refused reports a broker's refusal of the authentication.
func refused(err error) bool { return errors.Is(err, kerr.SaslAuthenticationFailed) }

// AWS_MSK_IAM against the signing rules (not against MSK, which this
// machine cannot reach): credentials from the environment and from a
// profile of the shared credentials file are signed as AWS's signer signs
// them; a wrong region, an unknown key and an expired session are refused
// as authentication failures.
func TestAWSMSKIAM(t *testing.T) {
	isolateAWS(t)
	s := newMSKStub(t, "eu-west-1")
	session := aws.Credentials{AccessKeyID: "ASIABENCHSESSION01", SecretAccessKey: "s3cr3t/session+key", SessionToken: "FwoGZXIvYXdzEBAaDH+session/token=="}
	profile := aws.Credentials{AccessKeyID: "AKIABENCHPROFILE01", SecretAccessKey: "profile/secret+key"}
	s.allow(session)
	s.allow(profile)
	s.allow(aws.Credentials{AccessKeyID: "ASIABENCHEXPIRED01", SecretAccessKey: "expired-secret", SessionToken: "old-token",
		CanExpire: true, Expires: time.Now().Add(-time.Minute)})
	iam := Config{Mechanism: AWSMSKIAM}

	t.Run("environment", func(t *testing.T) {
		t.Setenv("AWS_ACCESS_KEY_ID", session.AccessKeyID)
		t.Setenv("AWS_SECRET_ACCESS_KEY", session.SecretAccessKey)
		t.Setenv("AWS_SESSION_TOKEN", session.SessionToken)
		t.Setenv("AWS_REGION", "eu-west-1")
		if err := pingWith(t, s, iam); err != nil {
			t.Fatalf("refused: %v (stub: %s)", err, s.lastErr())
		}
		t.Setenv("AWS_REGION", "us-east-1")
		err := pingWith(t, s, iam)
		if err == nil || !refused(err) || !strings.Contains(s.lastErr(), "signed for region us-east-1") {
			t.Errorf("signed for the wrong region: %v (stub: %s)", err, s.lastErr())
		}
		if err != nil && strings.Contains(err.Error(), session.SecretAccessKey) {
			t.Errorf("the error shows the secret key: %v", err)
		}
	})
	t.Run("profile", func(t *testing.T) {
		t.Setenv("AWS_REGION", "eu-west-1")
		if err := os.WriteFile(os.Getenv("AWS_SHARED_CREDENTIALS_FILE"), fmt.Appendf(nil, "[default]\naws_access_key_id = AKIANOTTHISONE0001\naws_secret_access_key = x\n[bench]\naws_access_key_id = %s\naws_secret_access_key = %s\n",
			profile.AccessKeyID, profile.SecretAccessKey), 0o600); err != nil {
			t.Fatal(err)
		}
		withProfile := iam
		withProfile.AWS.Profile = "bench"
		if err := pingWith(t, s, withProfile); err != nil {
			t.Fatalf("refused: %v (stub: %s)", err, s.lastErr())
		}
		if err := pingWith(t, s, iam); err == nil || !strings.Contains(s.lastErr(), "unknown access key AKIANOTTHISONE0001") {
			t.Errorf("the default profile's unknown key: %v (stub: %s)", err, s.lastErr())
		}
	})
	t.Run("wrong secret", func(t *testing.T) {
		s.allow(aws.Credentials{AccessKeyID: "AKIABENCHWRONG0001", SecretAccessKey: "the-right-secret"})
		t.Setenv("AWS_REGION", "eu-west-1")
		t.Setenv("AWS_ACCESS_KEY_ID", "AKIABENCHWRONG0001")
		t.Setenv("AWS_SECRET_ACCESS_KEY", "a-wrong-secret")
		if err := pingWith(t, s, iam); err == nil || !refused(err) || !strings.Contains(s.lastErr(), "AWS's signer makes") {
			t.Errorf("wrong secret key: %v (stub: %s)", err, s.lastErr())
		}
	})
	t.Run("assumed role and web identity", func(t *testing.T) {
		sts := newSTSStub(t, profile)
		t.Setenv("AWS_REGION", "eu-west-1")
		t.Setenv("AWS_ENDPOINT_URL_STS", sts.url)
		for _, c := range sts.issued {
			s.allow(c)
		}
		// kafka.sasl.aws.role_arn, assumed with the environment's key.
		t.Setenv("AWS_ACCESS_KEY_ID", profile.AccessKeyID)
		t.Setenv("AWS_SECRET_ACCESS_KEY", profile.SecretAccessKey)
		withRole := iam
		withRole.AWS = AWS{RoleARN: "arn:aws:iam::123456789012:role/kafka-bench", SessionName: "bench-1"}
		if err := pingWith(t, s, withRole); err != nil {
			t.Fatalf("refused: %v (stub: %s)", err, s.lastErr())
		}
		if k := s.lastKey(); k != "ASIABENCHROLE00001" {
			t.Errorf("signed with %s, not the assumed role's key", k)
		}
		if got := sts.calls(); !strings.Contains(got, "AssumeRole role=arn:aws:iam::123456789012:role/kafka-bench session=bench-1 key="+profile.AccessKeyID) {
			t.Errorf("STS calls %q", got)
		}
		// IRSA: the chain's web identity token, no key in the environment.
		if err := errors.Join(os.Unsetenv("AWS_ACCESS_KEY_ID"), os.Unsetenv("AWS_SECRET_ACCESS_KEY")); err != nil {
			t.Fatal(err)
		}
		token := filepath.Join(t.TempDir(), "token")
		if err := os.WriteFile(token, []byte("eyJ.irsa.token"), 0o600); err != nil {
			t.Fatal(err)
		}
		t.Setenv("AWS_ROLE_ARN", "arn:aws:iam::123456789012:role/kafka-bench-irsa")
		t.Setenv("AWS_WEB_IDENTITY_TOKEN_FILE", token)
		if err := pingWith(t, s, iam); err != nil {
			t.Fatalf("refused: %v (stub: %s)", err, s.lastErr())
		}
		if k := s.lastKey(); k != "ASIABENCHIRSA00001" {
			t.Errorf("signed with %s, not the web identity role's key", k)
		}
		if got := sts.calls(); !strings.Contains(got, "AssumeRoleWithWebIdentity role=arn:aws:iam::123456789012:role/kafka-bench-irsa token=eyJ.irsa.token") {
			t.Errorf("STS calls %q", got)
		}
	})
	t.Run("expired", func(t *testing.T) {
		t.Setenv("AWS_REGION", "eu-west-1")
		// The broker's side: a session it knows to have expired.
		t.Setenv("AWS_ACCESS_KEY_ID", "ASIABENCHEXPIRED01")
		t.Setenv("AWS_SECRET_ACCESS_KEY", "expired-secret")
		t.Setenv("AWS_SESSION_TOKEN", "old-token")
		if err := pingWith(t, s, iam); err == nil || !refused(err) || !strings.Contains(s.lastErr(), "ExpiredToken") {
			t.Errorf("expired session: %v (stub: %s)", err, s.lastErr())
		}
		// The client's side (credentials that say they expired are not
		// sent at all) is TestExpiredAWSCredentialsNotSent.
	})
}

// stsStub answers AssumeRole (signed with base's key) and
// AssumeRoleWithWebIdentity on loopback, handing out one session each.
type stsStub struct {
	url    string
	issued map[string]aws.Credentials // by action
	mu     sync.Mutex
	log    []string
}

func newSTSStub(t *testing.T, base aws.Credentials) *stsStub {
	t.Helper()
	s := &stsStub{issued: map[string]aws.Credentials{
		"AssumeRole":                {AccessKeyID: "ASIABENCHROLE00001", SecretAccessKey: "role-secret", SessionToken: "role-token"},
		"AssumeRoleWithWebIdentity": {AccessKeyID: "ASIABENCHIRSA00001", SecretAccessKey: "irsa-secret", SessionToken: "irsa-token"},
	}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		action := r.PostForm.Get("Action")
		c, ok := s.issued[action]
		var call string
		switch action {
		case "AssumeRole":
			// Signed with the base key (the signature itself is the SDK's).
			if !strings.Contains(r.Header.Get("Authorization"), "Credential="+base.AccessKeyID+"/") {
				ok = false
			}
			call = fmt.Sprintf("AssumeRole role=%s session=%s key=%s", r.PostForm.Get("RoleArn"), r.PostForm.Get("RoleSessionName"), base.AccessKeyID)
		case "AssumeRoleWithWebIdentity":
			call = fmt.Sprintf("AssumeRoleWithWebIdentity role=%s token=%s", r.PostForm.Get("RoleArn"), r.PostForm.Get("WebIdentityToken"))
		}
		s.mu.Lock()
		s.log = append(s.log, call)
		s.mu.Unlock()
		if !ok {
			http.Error(w, "<ErrorResponse><Error><Code>AccessDenied</Code></Error></ErrorResponse>", http.StatusForbidden)
			return
		}
		w.Header().Set("Content-Type", "text/xml")
		// A failed write shows as the client's error.
		_, _ = fmt.Fprintf(w, `<%[1]sResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><%[1]sResult>
<Credentials><AccessKeyId>%[2]s</AccessKeyId><SecretAccessKey>%[3]s</SecretAccessKey><SessionToken>%[4]s</SessionToken><Expiration>%[5]s</Expiration></Credentials>
<AssumedRoleUser><Arn>arn:aws:sts::123456789012:assumed-role/kafka-bench/s</Arn><AssumedRoleId>AROABENCH:s</AssumedRoleId></AssumedRoleUser>
</%[1]sResult><ResponseMetadata><RequestId>stub</RequestId></ResponseMetadata></%[1]sResponse>`,
			action, c.AccessKeyID, c.SecretAccessKey, c.SessionToken, time.Now().Add(time.Hour).UTC().Format(time.RFC3339))
	}))
	t.Cleanup(srv.Close)
	s.url = srv.URL
	return s
}

func (s *stsStub) calls() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.log, "; ")
}
