// Package httpconf is the one outbound HTTP client block: the OAuth token
// endpoint's (kafka.sasl.oauth.http_config) and the bench's host scrapes'
// (hosts[].http_config). It has the shape of Prometheus' http_config (a
// subset: tls_config, basic_auth, proxy_url, no_proxy,
// proxy_from_environment), is validated by github.com/prometheus/common's
// own checks, and the client is built by that library. Validate is pure;
// Resolve reads the files, so that the client is built from their content
// and a changed file is a changed Resolved.
package httpconf

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"time"

	promconfig "github.com/prometheus/common/config"

	"github.com/kafka-bench/kafka_bench_exporter/redact"
)

// Client is an outbound HTTP client's settings.
type Client struct {
	// BasicAuth authenticates with HTTP Basic; where the caller's protocol
	// authenticates otherwise (the OAuth client-credentials grant) it is
	// refused (Options.NoBasicAuth).
	BasicAuth *BasicAuth `yaml:"basic_auth" doc:"HTTP Basic authentication, as Prometheus' basic_auth (the password from a file only)"`
	TLS       TLS        `yaml:"tls_config"`
	// ProxyURL, NoProxy and ProxyFromEnvironment are Prometheus' proxy
	// settings: a proxy URL (its no_proxy exceptions) or the
	// HTTP_PROXY/HTTPS_PROXY/NO_PROXY variables, not both.
	ProxyURL             string `yaml:"proxy_url" values:"http://, https:// or socks5:// URL; not with {proxy_from_environment}" doc:"proxy for the requests"`
	NoProxy              string `yaml:"no_proxy" values:"comma-separated hosts, domains and CIDRs; needs {proxy_url}" doc:"requests to these go direct"`
	ProxyFromEnvironment bool   `yaml:"proxy_from_environment" doc:"use the HTTP_PROXY, HTTPS_PROXY and NO_PROXY variables of the process"`
}

// BasicAuth is HTTP Basic authentication; the password lives in a file.
type BasicAuth struct {
	Username     string `yaml:"username" values:"required with {basic_auth}" doc:"user of HTTP Basic"`
	PasswordFile string `yaml:"password_file" values:"required with {basic_auth}" doc:"the password, from a file (read at start; one line)"`
}

// TLS is Prometheus' tls_config, the PEM files by name.
type TLS struct {
	CAFile             string `yaml:"ca_file" default:"(system roots)" doc:"PEM CA certificate(s) that verify the server"`
	CertFile           string `yaml:"cert_file" values:"set with {key_file}: both or neither" doc:"PEM client certificate (mTLS)"`
	KeyFile            string `yaml:"key_file" values:"set with {cert_file}: both or neither" doc:"PEM client key (mTLS)"`
	ServerName         string `yaml:"server_name" default:"(the URL's host)" doc:"name the server certificate is checked against"`
	InsecureSkipVerify bool   `yaml:"insecure_skip_verify" doc:"do not verify the server certificate (tests only)"`
	MinVersion         string `yaml:"min_version" default:"TLS12" values:"TLS10, TLS11, TLS12 or TLS13" doc:"oldest TLS version accepted"`
}

// IsZero reports an unset tls_config.
func (t TLS) IsZero() bool { return t == TLS{} }

// Error is a problem with one key of the block: Key is relative to it
// (tls_config.ca_file); the caller names the block.
type Error struct {
	Key     string
	Value   any
	Problem string
}

// Error says the key and the problem; callers quote the value through
// their redaction rule.
func (e *Error) Error() string { return e.Key + ": " + e.Problem }

// Options say what the caller's protocol allows.
type Options struct {
	// NoBasicAuth refuses basic_auth, naming why.
	NoBasicAuth string
}

// IsZero reports an unset block.
func (c *Client) IsZero() bool {
	return c.BasicAuth == nil && c.TLS.IsZero() && c.ProxyURL == "" && c.NoProxy == "" && !c.ProxyFromEnvironment
}

// Validate checks the block without reading a file.
func (c *Client) Validate(o Options) error {
	if b := c.BasicAuth; b != nil {
		switch {
		case o.NoBasicAuth != "":
			return &Error{"basic_auth.username", b.Username, o.NoBasicAuth}
		case b.Username == "":
			return &Error{"basic_auth.username", "", "must be set with basic_auth"}
		case b.PasswordFile == "":
			return &Error{"basic_auth.password_file", "", "must be set with basic_auth"}
		}
	}
	switch t := c.TLS; {
	case t.CertFile != "" && t.KeyFile == "":
		return &Error{"tls_config.key_file", "", "must be set with cert_file"}
	case t.KeyFile != "" && t.CertFile == "":
		return &Error{"tls_config.cert_file", "", "must be set with key_file"}
	}
	if v := c.TLS.MinVersion; v != "" {
		if _, ok := promconfig.TLSVersions[v]; !ok {
			return &Error{"tls_config.min_version", v, "must be one of TLS10, TLS11, TLS12 or TLS13"}
		}
	}
	if c.ProxyURL != "" {
		u, err := url.Parse(c.ProxyURL)
		if err != nil || !slices.Contains([]string{"http", "https", "socks5"}, u.Scheme) || u.Host == "" {
			return &Error{"proxy_url", c.ProxyURL, "must be an http://, https:// or socks5:// URL"}
		}
	}
	// Prometheus' own checks, in its words, on the same shape: a part at a
	// time, so that each error names the key of its part.
	pc, err := c.prometheus(nil)
	if err != nil {
		return err
	}
	if err := pc.TLSConfig.Validate(); err != nil {
		return &Error{"tls_config", tlsShown, err.Error()}
	}
	if err := pc.ProxyConfig.Validate(); err != nil {
		return &Error{"proxy_url", c.ProxyURL, err.Error()}
	}
	// The rest, its proxy settings valid: of what the block sets, only
	// basic_auth.
	if err := pc.Validate(); err != nil {
		var user any = ""
		if c.BasicAuth != nil {
			user = c.BasicAuth.Username
		}
		return &Error{"basic_auth", user, err.Error()}
	}
	return nil
}

// block is a block as an error shows it: unquoted, not its content.
type block string

func (b block) String() string { return string(b) }

// tlsShown is the tls_config block as an error quotes it.
const tlsShown = block("{...}")

// prometheus is the block as Prometheus' config; read gives the files'
// content (nil: the files by name, for Validate).
func (c *Client) prometheus(read func(key, path string) ([]byte, error)) (promconfig.HTTPClientConfig, error) {
	pc := promconfig.DefaultHTTPClientConfig
	if c.ProxyURL != "" {
		u, err := url.Parse(c.ProxyURL)
		if err != nil {
			return pc, &Error{"proxy_url", c.ProxyURL, "must be an http://, https:// or socks5:// URL"}
		}
		pc.ProxyURL = promconfig.URL{URL: u}
	}
	pc.NoProxy = c.NoProxy
	pc.ProxyFromEnvironment = c.ProxyFromEnvironment
	t := c.TLS
	pc.TLSConfig = promconfig.TLSConfig{ServerName: t.ServerName, InsecureSkipVerify: t.InsecureSkipVerify}
	if t.MinVersion != "" {
		pc.TLSConfig.MinVersion = promconfig.TLSVersions[t.MinVersion]
	}
	if read == nil {
		pc.TLSConfig.CAFile, pc.TLSConfig.CertFile, pc.TLSConfig.KeyFile = t.CAFile, t.CertFile, t.KeyFile
		if b := c.BasicAuth; b != nil {
			pc.BasicAuth = &promconfig.BasicAuth{Username: b.Username, PasswordFile: b.PasswordFile}
		}
		return pc, nil
	}
	for _, f := range []struct {
		key, path string
		dst       *string
	}{
		{"tls_config.ca_file", t.CAFile, &pc.TLSConfig.CA},
		{"tls_config.cert_file", t.CertFile, &pc.TLSConfig.Cert},
		{"tls_config.key_file", t.KeyFile, (*string)(&pc.TLSConfig.Key)},
	} {
		if f.path == "" {
			continue
		}
		b, err := read(f.key, f.path)
		if err != nil {
			return pc, err
		}
		*f.dst = string(b)
	}
	if b := c.BasicAuth; b != nil {
		p, err := read("basic_auth.password_file", b.PasswordFile)
		if err != nil {
			return pc, err
		}
		pw := redact.SecretLine(p)
		if pw == "" {
			return pc, &Error{"basic_auth.password_file", b.PasswordFile, "the file is empty"}
		}
		pc.BasicAuth = &promconfig.BasicAuth{Username: b.Username, Password: promconfig.Secret(pw.Reveal())}
	}
	return pc, nil
}

// Resolved is a block with its files read: the client is built from it
// alone. Two resolves of unchanged files are equal (reflect.DeepEqual). The
// zero Resolved is a block not resolved (IsZero).
type Resolved struct {
	cfg      promconfig.HTTPClientConfig
	resolved bool
}

// IsZero reports a Resolved that Resolve did not make: its block's files
// are not read.
func (r Resolved) IsZero() bool { return !r.resolved }

// Resolve reads the block's files with read (which names key and path in
// its errors and makes a relative path absolute as the caller's files are)
// and checks that the TLS material is usable.
func (c *Client) Resolve(read func(key, path string) ([]byte, error)) (Resolved, error) {
	pc, err := c.prometheus(read)
	if err != nil {
		return Resolved{}, err
	}
	if _, err := promconfig.NewTLSConfig(&pc.TLSConfig); err != nil {
		return Resolved{}, &Error{"tls_config", tlsShown, err.Error()}
	}
	return Resolved{cfg: pc, resolved: true}, nil
}

// NewClient is the HTTP client of a resolved block; name names it in the
// library's metrics and logs, timeout bounds each request.
func (r Resolved) NewClient(name string, timeout time.Duration) (*http.Client, error) {
	cl, err := promconfig.NewClientFromConfig(r.cfg, name)
	if err != nil {
		return nil, errors.New(redact.Text(err.Error()))
	}
	cl.Timeout = timeout
	return cl, nil
}
