// Package alerts ships the Prometheus recording and alerting rules for
// kafka_bench_exporter (recording_rules.yml and alerts.yml in this directory)
// and small helpers to read them.
//
// The rule files follow monitoring-mixin conventions: recording rules are
// named level:metric:operations, alerts are CamelCase with the prefix
// KafkaBench and carry a severity label (critical, warning or info) and the
// annotations summary, description and runbook_url.
//
// Both files are rendered from the monitoring mixin (mixin/, go generate
// ./mixin); edit the mixin, not them. Load both into Prometheus: several
// alerts read recorded series.
package alerts

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Files holds the rule files of this directory (*.yml, not the promtool tests).
//
//go:embed *.yml
var Files embed.FS

// Names of the embedded rule files.
const (
	AlertsFile         = "alerts.yml"
	RecordingRulesFile = "recording_rules.yml"
)

// RunbookBaseURL is the prefix of every alert's runbook_url; the anchor is
// the alert name in lower case.
const RunbookBaseURL = "https://github.com/kafka-bench/kafka_bench_exporter/blob/main/docs/runbooks.md#"

// Rule is one recording or alerting rule of an embedded rule file.
// Exactly one of Record and Alert is set.
type Rule struct {
	File        string // file name inside Files, e.g. "alerts.yml"
	Group       string
	Record      string
	Alert       string
	Expr        string
	For         string // "" when the rule has no for clause
	Labels      map[string]string
	Annotations map[string]string
}

type ruleFileYAML struct {
	Groups []ruleGroupYAML `yaml:"groups"`
}

type ruleGroupYAML struct {
	Name     string     `yaml:"name"`
	Interval string     `yaml:"interval,omitempty"`
	Rules    []ruleYAML `yaml:"rules"`
}

type ruleYAML struct {
	Record      string            `yaml:"record,omitempty"`
	Alert       string            `yaml:"alert,omitempty"`
	Expr        string            `yaml:"expr"`
	For         string            `yaml:"for,omitempty"`
	Labels      map[string]string `yaml:"labels,omitempty"`
	Annotations map[string]string `yaml:"annotations,omitempty"`
}

// FileNames returns the sorted names of the embedded rule files.
func FileNames() ([]string, error) {
	names, err := fs.Glob(Files, "*.yml")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	return names, nil
}

// RuleFiles returns the contents of every embedded rule file by file name.
func RuleFiles() (map[string][]byte, error) {
	names, err := FileNames()
	if err != nil {
		return nil, err
	}
	files := make(map[string][]byte, len(names))
	for _, name := range names {
		b, err := Files.ReadFile(name)
		if err != nil {
			return nil, err
		}
		files[name] = b
	}
	return files, nil
}

// Rules parses every embedded rule file and returns its rules in file
// (sorted by name), group and rule order.
func Rules() ([]Rule, error) {
	names, err := FileNames()
	if err != nil {
		return nil, err
	}
	var rules []Rule
	for _, name := range names {
		b, err := Files.ReadFile(name)
		if err != nil {
			return nil, err
		}
		var f ruleFileYAML
		if err := yaml.Unmarshal(b, &f); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		for _, g := range f.Groups {
			for i, r := range g.Rules {
				if (r.Record == "") == (r.Alert == "") {
					return nil, fmt.Errorf("%s: group %s rule %d: exactly one of record and alert must be set", name, g.Name, i)
				}
				rules = append(rules, Rule{
					File:        name,
					Group:       g.Name,
					Record:      r.Record,
					Alert:       r.Alert,
					Expr:        strings.TrimSpace(r.Expr),
					For:         r.For,
					Labels:      r.Labels,
					Annotations: r.Annotations,
				})
			}
		}
	}
	return rules, nil
}

// AlertNames returns the sorted, de-duplicated names of all alerting rules
// (an alert with several severities or burn-rate windows has several rules
// but one name).
func AlertNames() ([]string, error) {
	return names(func(r Rule) string { return r.Alert })
}

// RecordingRuleNames returns the sorted, de-duplicated names of all
// recording rules.
func RecordingRuleNames() ([]string, error) {
	return names(func(r Rule) string { return r.Record })
}

func names(pick func(Rule) string) ([]string, error) {
	rules, err := Rules()
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []string
	for _, r := range rules {
		if n := pick(r); n != "" && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out, nil
}

// AlertRuleFile returns a standalone Prometheus rule file (YAML) holding
// every alerting rule named alert, unchanged except that their for clause is
// replaced by forDuration (a Prometheus duration such as "5s"; "" removes the
// for clause). It is meant for end-to-end tests, e.g.
// AlertRuleFile("KafkaBenchProbeDown", "5s"). Alerts whose expression reads
// recorded series also need RecordingRulesFile loaded.
func AlertRuleFile(alert, forDuration string) ([]byte, error) {
	rules, err := Rules()
	if err != nil {
		return nil, err
	}
	g := ruleGroupYAML{Name: "kafka_bench_derived_" + strings.ToLower(alert)}
	for _, r := range rules {
		if r.Alert != alert {
			continue
		}
		g.Rules = append(g.Rules, ruleYAML{
			Alert:       r.Alert,
			Expr:        r.Expr,
			For:         forDuration,
			Labels:      r.Labels,
			Annotations: r.Annotations,
		})
	}
	if len(g.Rules) == 0 {
		return nil, fmt.Errorf("no alerting rule named %q", alert)
	}
	return yaml.Marshal(ruleFileYAML{Groups: []ruleGroupYAML{g}})
}
