package config

import (
	"net/url"
	"strings"
)

// SASLOAuthBearer is the OAUTHBEARER mechanism (kafka.sasl.oauth).
const SASLOAuthBearer = "OAUTHBEARER"

// OAuth configures OAUTHBEARER (kafka.sasl.oauth): a token from an OAuth
// token endpoint with the client-credentials grant, or a token another
// process keeps fresh in a file. The secrets live in files only, so that
// they can rotate and never appear in the configuration.
type OAuth struct {
	// TokenEndpoint is the URL of the token endpoint (client credentials).
	TokenEndpoint    string `yaml:"token_endpoint"`
	ClientID         string `yaml:"client_id"`
	ClientSecretFile string `yaml:"client_secret_file"`
	// Scope is sent with the token request when set.
	Scope string `yaml:"scope"`
	// Extensions are SASL extensions sent with the token (KIP-342), such
	// as Confluent Cloud's logicalCluster and identityPoolId.
	Extensions map[string]string `yaml:"extensions"`
	// TokenFile holds a token (a JWT) written by another process.
	TokenFile string `yaml:"token_file"`

	// resolved are the paths made absolute and the validated contents; a
	// pointer for the reasons of TLS.loaded.
	resolved *oauthFiles
}

type oauthFiles struct {
	secretPath, tokenPath string
	secret, token         Secret
}

func (o *OAuth) set() bool {
	return o.TokenEndpoint != "" || o.ClientID != "" || o.ClientSecretFile != "" || o.Scope != "" ||
		len(o.Extensions) > 0 || o.TokenFile != ""
}

// validate checks kafka.sasl.oauth for mechanism OAUTHBEARER and reads its
// files.
func (o *OAuth) validate(dir string) error {
	o.resolved = nil
	const k = "kafka.sasl.oauth."
	switch {
	case o.TokenEndpoint == "" && o.TokenFile == "":
		return FieldError("", k+"token_endpoint", "", "set token_endpoint (client credentials) or token_file with mechanism OAUTHBEARER")
	case o.TokenEndpoint != "" && o.TokenFile != "":
		return FieldError("", k+"token_file", o.TokenFile, "set token_endpoint or token_file, not both")
	}
	for name := range o.Extensions {
		// RFC 7628: key = 1*(ALPHA); "auth" is reserved for the token.
		if name == "" || name == "auth" || strings.IndexFunc(name, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') }) >= 0 {
			return FieldError("", k+"extensions", name, "extension names must be letters only and not \"auth\"")
		}
	}
	var f oauthFiles
	if o.TokenFile != "" {
		for _, kv := range [][2]string{{"client_id", o.ClientID}, {"client_secret_file", o.ClientSecretFile}, {"scope", o.Scope}} {
			if kv[1] != "" {
				return FieldError("", k+kv[0], kv[1], "only with token_endpoint, not with token_file")
			}
		}
		f.tokenPath = resolvePath(dir, o.TokenFile)
		tok, err := readSecretFile(k+"token_file", dir, o.TokenFile)
		if err != nil {
			return err
		}
		f.token = tok
		o.resolved = &f
		return nil
	}
	u, err := url.Parse(o.TokenEndpoint)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return FieldError("", k+"token_endpoint", o.TokenEndpoint, "must be an http:// or https:// URL")
	}
	if u.User != nil {
		return FieldError("", k+"token_endpoint", o.TokenEndpoint, "must not hold credentials: use client_id and client_secret_file")
	}
	if o.ClientID == "" {
		return FieldError("", k+"client_id", "", "must be set with token_endpoint")
	}
	if o.ClientSecretFile == "" {
		return FieldError("", k+"client_secret_file", "", "must be set with token_endpoint")
	}
	f.secretPath = resolvePath(dir, o.ClientSecretFile)
	if f.secret, err = readSecretFile(k+"client_secret_file", dir, o.ClientSecretFile); err != nil {
		return err
	}
	o.resolved = &f
	return nil
}

// ClientSecretPath is the client secret file, made absolute; "" without a
// token endpoint.
func (o OAuth) ClientSecretPath() string { return o.files().secretPath }

// ClientSecret is the validated content of client_secret_file.
func (o OAuth) ClientSecret() Secret { return o.files().secret }

// TokenPath is the token file, made absolute; "" without one.
func (o OAuth) TokenPath() string { return o.files().tokenPath }

// Token is the validated content of token_file.
func (o OAuth) Token() Secret { return o.files().token }

func (o OAuth) files() oauthFiles {
	if o.resolved == nil {
		_ = o.validate("") // not validated (built in code): resolve now
	}
	if o.resolved == nil {
		return oauthFiles{}
	}
	return *o.resolved
}

// readSecretFile reads a file holding one secret; the trailing newline of
// editors and `echo` is not part of it.
func readSecretFile(key, dir, path string) (Secret, error) {
	b, err := readFile(key, dir, path)
	if err != nil {
		return "", err
	}
	s := Secret(strings.TrimRight(string(b), "\r\n"))
	if s == "" {
		return "", FieldError("", key, path, "the file is empty")
	}
	return s, nil
}
