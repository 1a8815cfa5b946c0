package spec

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kafka-bench/kafka_bench_exporter/config"
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
		if u, err := url.Parse(h.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
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
	}
	return nil
}
