package kclient

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kafka-bench/kafka_bench_exporter/sasl"
)

// IsAuthError reports whether err means the cluster or this client rejected
// who the other side is: SASL failures and authorization errors from the
// broker, TLS certificate verification failures on either side, and an
// OAuth token that could not be fetched, a failed Kerberos login, and AWS
// credentials that could not be had. They do
// not heal by retrying, so they are reason `auth` wherever they are wrapped
// (franz-go reports a record that timed out while the connection kept
// failing authentication as "timed out ..., last err: SASL_AUTHENTICATION_FAILED").
func IsAuthError(err error) bool {
	if err == nil {
		return false
	}
	switch {
	case errors.Is(err, kerr.SaslAuthenticationFailed), errors.Is(err, kerr.IllegalSaslState),
		errors.Is(err, kerr.UnsupportedSaslMechanism), errors.Is(err, kerr.TopicAuthorizationFailed),
		errors.Is(err, kerr.ClusterAuthorizationFailed), errors.Is(err, kerr.GroupAuthorizationFailed),
		errors.Is(err, kerr.TransactionalIDAuthorizationFailed):
		return true
	}
	if sasl.IsAuthError(err) {
		return true
	}
	var certErr *tls.CertificateVerificationError
	var unknownAuthority x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	return errors.As(err, &certErr) || errors.As(err, &unknownAuthority) || errors.As(err, &hostname) ||
		errors.As(err, &invalid) || isCertAlert(err)
}

// isCertAlert: the broker rejected our client certificate (mTLS), or
// wanted one. crypto/tls reports a received alert as a net.OpError "remote
// error" around an unexported type, so its text is what there is:
// "tls: bad certificate", "tls: unknown certificate authority",
// "tls: certificate required", ...
func isCertAlert(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "remote error" && op.Err != nil && strings.Contains(op.Err.Error(), "certificate")
}
