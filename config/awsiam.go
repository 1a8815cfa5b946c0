package config

import "regexp"

// SASLAWSMSKIAM is Amazon MSK's IAM mechanism (kafka.sasl.aws).
const SASLAWSMSKIAM = "AWS_MSK_IAM"

// AWS configures AWS_MSK_IAM (kafka.sasl.aws). Credentials come from the
// standard AWS chain: environment, shared config and credentials files
// (profile), web identity (IRSA), EKS Pod Identity and instance roles; no
// secret is ever in this file.
type AWS struct {
	// Region is where STS is asked (role, web identity); empty: the
	// chain's (AWS_REGION, the profile). Requests are signed for the
	// region in the broker host name (MSK's names carry it), else this one.
	Region string `yaml:"region"`
	// Profile of the shared config files; empty: AWS_PROFILE or default.
	Profile string `yaml:"profile"`
	// RoleARN, when set, is assumed with the chain's credentials.
	RoleARN     string `yaml:"role_arn"`
	SessionName string `yaml:"session_name"`
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
	const p = "kafka.sasl.aws."
	switch {
	case a.Region != "" && !awsRegion.MatchString(a.Region):
		return FieldError("", p+"region", a.Region, "not an AWS region such as us-east-1")
	case a.RoleARN != "" && !roleARN.MatchString(a.RoleARN):
		return FieldError("", p+"role_arn", a.RoleARN, "not an IAM role ARN such as arn:aws:iam::123456789012:role/kafka-bench")
	case a.SessionName != "" && a.RoleARN == "":
		return FieldError("", p+"session_name", a.SessionName, "only with role_arn")
	case a.SessionName != "" && !stsSession.MatchString(a.SessionName):
		return FieldError("", p+"session_name", a.SessionName, "must be 2-64 letters, digits and +=,.@-_")
	}
	return nil
}
