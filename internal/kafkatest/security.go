package kafkatest

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/internal/testcerts"
)

// SecureListener is the name of the SASL_SSL client listener.
const SecureListener = "SECURE"

// SASLSSL adds a SASL_SSL client listener on 127.0.0.1 to every node. Its
// certificates are generated at start (a CA and a server certificate with
// the IP SAN 127.0.0.1; see Cluster.Certs). Every user can log in with
// PLAIN (from the listener's JAAS configuration), SCRAM-SHA-256 and
// SCRAM-SHA-512 (SCRAM credentials created at format time with the storage
// tool's --add-scram). The inter-broker and controller listeners stay
// PLAINTEXT, and no authorizer is set: an authenticated user may do
// anything.
type SASLSSL struct {
	// Users maps user names to passwords. Names and passwords must be
	// letters, digits, '-' and '_' (they go into JAAS and --add-scram
	// arguments unquoted).
	Users map[string]string
	// ClientAuth requires a client certificate signed by the test CA (mTLS).
	ClientAuth bool
	// ClientCAFile, when set, replaces the test CA as the PEM file that
	// client certificates are checked against. The broker reads it at each
	// start: a test rotating client CAs rewrites it and restarts the node.
	ClientCAFile string
	// OAuthJWKS, when set, also lets clients log in with OAUTHBEARER: the
	// broker validates their JWTs (RS256, claims sub, exp, iss and aud)
	// with the keys at this JWKS URL (Kafka's
	// OAuthBearerValidatorCallbackHandler), and re-authentication is
	// enforced after OAuthReauth (default 10 s), so that an expiring token
	// matters for open connections too. OAuthIssuer and OAuthAudience,
	// required with OAuthJWKS, are the issuer and the audience the tokens
	// must name (sasl.oauthbearer.expected.issuer and .audience): Kafka 4.4
	// refuses to start an OAUTHBEARER listener that checks neither.
	OAuthJWKS     string
	OAuthIssuer   string
	OAuthAudience string
	OAuthReauth   time.Duration
	// Kerberos, when set, makes GSSAPI the listener's only mechanism.
	Kerberos *Kerberos
	// PlainText makes the listener SASL_PLAINTEXT instead of SASL_SSL.
	PlainText bool
}

// Kerberos is the broker's side of GSSAPI: its principal (such as
// kafka/127.0.0.1@REALM, the first part being the service name clients
// ask for), the keytab holding its key and the krb5.conf naming the KDC.
type Kerberos struct {
	Principal, Keytab, Krb5Conf string
}

func (s *SASLSSL) certificates(dir string) (*testcerts.Set, error) {
	if s.OAuthJWKS != "" && (s.OAuthIssuer == "" || s.OAuthAudience == "") {
		return nil, fmt.Errorf("kafkatest: SASLSSL.OAuthJWKS = %q: needs OAuthIssuer and OAuthAudience, the issuer and audience the broker requires of tokens", s.OAuthJWKS)
	}
	for u, p := range s.Users {
		if !plainToken(u) || !plainToken(p) {
			return nil, fmt.Errorf("kafkatest: SASLSSL user %q: names and passwords must be [A-Za-z0-9_-]+", u)
		}
	}
	certDir := filepath.Join(dir, "certs")
	if err := os.MkdirAll(certDir, 0o700); err != nil {
		return nil, fmt.Errorf("kafkatest: %w", err)
	}
	certs, err := testcerts.Generate(certDir)
	if err != nil {
		return nil, fmt.Errorf("kafkatest: certificates: %w", err)
	}
	return certs, nil
}

func plainToken(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

func (s *SASLSSL) users() []string { return slices.Sorted(maps.Keys(s.Users)) }

// listenerConfig adds the SECURE listener to kv (the node's properties).
func (s *SASLSSL) listenerConfig(kv [][2]string, n *node, certs *testcerts.Set) [][2]string {
	addr := fmt.Sprintf("%s://127.0.0.1:%d", SecureListener, n.sport)
	for i := range kv {
		switch kv[i][0] {
		case "listeners", "advertised.listeners":
			kv[i][1] += "," + addr
		case "listener.security.protocol.map":
			if s.PlainText {
				kv[i][1] += "," + SecureListener + ":SASL_PLAINTEXT"
			} else {
				kv[i][1] += "," + SecureListener + ":SASL_SSL"
			}
		}
	}
	prefix := "listener.name." + strings.ToLower(SecureListener) + "."
	var plainUsers strings.Builder
	for _, u := range s.users() {
		fmt.Fprintf(&plainUsers, " user_%s=%q", u, s.Users[u])
	}
	clientAuth := "none"
	if s.ClientAuth {
		clientAuth = "required"
	}
	trust := certs.CAFile
	if s.ClientCAFile != "" {
		trust = s.ClientCAFile
	}
	mechanisms := "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512"
	if s.OAuthJWKS != "" {
		mechanisms += ",OAUTHBEARER"
		reauth := s.OAuthReauth
		if reauth == 0 {
			reauth = 10 * time.Second
		}
		kv = append(kv,
			[2]string{prefix + "oauthbearer.sasl.jaas.config", "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;"},
			[2]string{prefix + "oauthbearer.sasl.server.callback.handler.class", "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler"},
			[2]string{prefix + "oauthbearer.connections.max.reauth.ms", strconv.FormatInt(reauth.Milliseconds(), 10)},
			[2]string{"sasl.oauthbearer.jwks.endpoint.url", s.OAuthJWKS},
			[2]string{"sasl.oauthbearer.expected.issuer", s.OAuthIssuer},
			[2]string{"sasl.oauthbearer.expected.audience", s.OAuthAudience},
		)
	}
	if k := s.Kerberos; k != nil {
		// GSSAPI alone: with it enabled, Kafka logs the listener's other
		// mechanisms in with Kerberos too (SaslChannelBuilder's default
		// login class), which their JAAS entries cannot do.
		mechanisms = "GSSAPI"
		service, _, _ := strings.Cut(k.Principal, "/")
		kv = append(kv,
			[2]string{prefix + "gssapi.sasl.jaas.config", fmt.Sprintf("com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true storeKey=true keyTab=%q principal=%q serviceName=%q;", k.Keytab, k.Principal, service)},
		)
	}
	return append(kv,
		[2]string{prefix + "sasl.enabled.mechanisms", mechanisms},
		[2]string{prefix + "plain.sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required" + plainUsers.String() + ";"},
		[2]string{prefix + "scram-sha-256.sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required;"},
		[2]string{prefix + "scram-sha-512.sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required;"},
		[2]string{prefix + "ssl.keystore.type", "PEM"},
		[2]string{prefix + "ssl.keystore.location", certs.ServerPEMFile},
		[2]string{prefix + "ssl.truststore.type", "PEM"},
		[2]string{prefix + "ssl.truststore.location", trust},
		[2]string{prefix + "ssl.client.auth", clientAuth},
	)
}

// jvmFlags: Kafka 4 fetches JWKS only from URLs allowed by a system
// property; Java's Kerberos reads its krb5.conf from one.
func (s *SASLSSL) jvmFlags() []string {
	var flags []string
	if s.OAuthJWKS != "" {
		flags = append(flags, "-Dorg.apache.kafka.sasl.oauthbearer.allowed.urls="+s.OAuthJWKS)
	}
	if s.Kerberos != nil {
		flags = append(flags, "-Djava.security.krb5.conf="+s.Kerberos.Krb5Conf)
	}
	return flags
}

// formatArgs create every user's SCRAM credentials at format time.
func (s *SASLSSL) formatArgs() []string {
	var args []string
	for _, u := range s.users() {
		for _, m := range []string{"SCRAM-SHA-256", "SCRAM-SHA-512"} {
			args = append(args, "--add-scram", fmt.Sprintf("%s=[name=%s,password=%s]", m, u, s.Users[u]))
		}
	}
	return args
}

// SecureBootstrap returns "127.0.0.1:port" of every node's SASL_SSL
// listener, or nil without Options.SASLSSL.
func (c *Cluster) SecureBootstrap() []string {
	if c.opts.SASLSSL == nil {
		return nil
	}
	addrs := make([]string, len(c.nodes))
	for i, n := range c.nodes {
		addrs[i] = loopback(n.sport)
	}
	return addrs
}

// Certs returns the certificates of the SASL_SSL listener (the CA that
// clients trust, and a client certificate for mTLS), or nil without
// Options.SASLSSL.
func (c *Cluster) Certs() *testcerts.Set { return c.certs }
