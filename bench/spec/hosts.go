package spec

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/httpconf"
)

// OwnHostName names the bench's own machine in the per-machine rows; it is
// always measured, so no entry of hosts may take the name.
const OwnHostName = "bench"

// Host roles, as the seeds' tables name their machines.
var hostRoles = []string{"broker", "producer", "consumer", "other"}

// HostEntry is one machine of the bench file's hosts list: a /metrics
// endpoint served by Prometheus' node_exporter or by this exporter (a host
// agent, --no-probes); which one is detected from what it serves.
type HostEntry struct {
	Name string `yaml:"name"`
	URL  string `yaml:"url"`
	Role string `yaml:"role"`
	// Disks and Interfaces select devices and interfaces, as host.disks
	// and host.interfaces of the exporter (same defaults).
	Disks      string `yaml:"disks"`
	Interfaces string `yaml:"interfaces"`
	// HTTP is the scrape's connection, as Prometheus' http_config: a
	// private CA, a client certificate, basic auth, a proxy.
	HTTP httpconf.Client `yaml:"http_config"`

	// http is HTTP with its files read (Bench.Resolve); zero until then.
	http httpconf.Resolved
}

// Client is the HTTP client that scrapes the host; timeout bounds one
// scrape. An entry with an http_config must have been resolved (Load).
func (h *HostEntry) Client(timeout time.Duration) (*http.Client, error) {
	if h.http.IsZero() {
		if !h.HTTP.IsZero() {
			return nil, fmt.Errorf("host %q: http_config was not resolved (its files not read)", h.Name)
		}
		return &http.Client{Timeout: timeout}, nil
	}
	return h.http.NewClient("host_"+h.Name, timeout)
}

// resolve reads the files of http_config, relative to the working
// directory as the bench file's other paths are.
func (h *HostEntry) resolve() error {
	r, err := h.HTTP.Resolve(func(key, path string) ([]byte, error) {
		return config.ReadFile(fmt.Sprintf("host %q", h.Name), "http_config."+key, "", path)
	})
	if err != nil {
		return hostHTTPError(h.Name, err)
	}
	h.http = r
	return nil
}

// hostHTTPError names an http_config problem by the host and its full key.
func hostHTTPError(name string, err error) error {
	if e, ok := errors.AsType[*httpconf.Error](err); ok {
		return config.FieldError(fmt.Sprintf("host %q", name), "http_config."+e.Key, e.Value, e.Problem)
	}
	return err
}

// UnmarshalYAML fills the defaults before the file's keys apply.
func (h *HostEntry) UnmarshalYAML(n *yaml.Node) error {
	h.Role = "other"
	h.Disks = config.DefaultDisks
	h.Interfaces = config.DefaultInterfaces
	type plain HostEntry
	return n.Decode((*plain)(h))
}

// validateHosts checks the hosts list; errors name the host as the user
// wrote it.
func validateHosts(hosts []HostEntry) error {
	seen := map[string]bool{}
	for i, h := range hosts {
		scope := fmt.Sprintf("host %q", h.Name)
		if h.Name == "" {
			return config.FieldError(fmt.Sprintf("hosts[%d]", i), "name", "", "every host needs a name")
		}
		if strings.EqualFold(h.Name, OwnHostName) {
			return config.FieldError(scope, "name", h.Name, "reserved for the bench's own host, which is always measured")
		}
		if seen[h.Name] {
			return config.FieldError(scope, "name", h.Name, "duplicate host name")
		}
		seen[h.Name] = true
		u, err := url.Parse(h.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return config.FieldError(scope, "url", h.URL, "must be an http:// or https:// URL of a /metrics endpoint, such as http://kafka1:9100/metrics")
		}
		if !slices.Contains(hostRoles, h.Role) {
			return config.FieldError(scope, "role", h.Role, "must be one of "+strings.Join(hostRoles, ", "))
		}
		if _, err := regexp.Compile(h.Disks); err != nil {
			return config.FieldError(scope, "disks", h.Disks, "invalid regex: "+err.Error())
		}
		if _, err := regexp.Compile(h.Interfaces); err != nil {
			return config.FieldError(scope, "interfaces", h.Interfaces, "invalid regex: "+err.Error())
		}
		if err := h.HTTP.Validate(httpconf.Options{}); err != nil {
			return hostHTTPError(h.Name, err)
		}
		if u.User != nil && h.HTTP.BasicAuth != nil {
			return config.FieldError(scope, "http_config.basic_auth.username", h.HTTP.BasicAuth.Username, "the url carries credentials too: set them in one place")
		}
		if u.Scheme == "http" && !h.HTTP.TLS.IsZero() {
			return config.FieldError(scope, "http_config.tls_config", config.RawValue("{...}"), "the url is http://: use https:// for TLS")
		}
	}
	return nil
}
