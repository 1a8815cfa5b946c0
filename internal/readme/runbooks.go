package readme

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// CheckRunbooks holds the runbook headings of a section to the alerts:
// alerts maps each alert name to the anchor of its runbook_url. Every alert
// has a heading whose anchor is that one, and every heading one level below
// the section is an alert.
func (d *Doc) CheckRunbooks(s Section, alerts map[string]string) []string {
	var problems []string
	headings := map[string]Heading{}
	for _, h := range d.Headings {
		if h.Line > s.Line && h.Line < s.End && h.Level == s.Level+1 {
			headings[h.Title] = h
			if _, ok := alerts[h.Title]; !ok {
				problems = append(problems, fmt.Sprintf("%s:%d (section %q): runbook %s is for no alert of alerts/: remove it or fix the name", d.Path, h.Line, s.Title, h.Title))
			}
		}
	}
	var names []string
	for name := range alerts {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		h, ok := headings[name]
		if !ok {
			problems = append(problems, fmt.Sprintf("%s:%d (section %q): alert %s has no runbook: add a heading %s %s",
				d.Path, s.End-1, s.Title, name, strings.Repeat("#", s.Level+1), name))
			continue
		}
		if a := Anchor(h.Title); a != alerts[name] {
			problems = append(problems, fmt.Sprintf("%s:%d: alert %s links runbook anchor #%s, the heading's anchor is #%s", d.Path, h.Line, name, alerts[name], a))
		}
	}
	return problems
}

var (
	groupingRE = regexp.MustCompile(`\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)`)
	matcherRE  = regexp.MustCompile(`\{([^}]*)\}`)
	matcherKey = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)`)
	templateRE = regexp.MustCompile(`\$labels\.([a-zA-Z_][a-zA-Z0-9_]*)`)
	metricRE   = regexp.MustCompile(`\b([a-z_][a-z0-9_]*:[a-z0-9_:]+|kafka_bench_[a-z0-9_]+|up)\b`)
)

// ExprLabels are the label names a PromQL expression or an annotation
// template names: grouping and matching clauses, selectors, $labels.x.
func ExprLabels(s string) []string {
	set := map[string]bool{}
	for _, m := range groupingRE.FindAllStringSubmatch(s, -1) {
		for l := range strings.SplitSeq(m[1], ",") {
			if l = strings.TrimSpace(l); l != "" {
				set[l] = true
			}
		}
	}
	for _, m := range matcherRE.FindAllStringSubmatch(s, -1) {
		if strings.Contains(m[1], "$") { // a template, not a selector
			continue
		}
		for _, k := range matcherKey.FindAllStringSubmatch(m[1], -1) {
			set[k[1]] = true
		}
	}
	for _, m := range templateRE.FindAllStringSubmatch(s, -1) {
		set[m[1]] = true
	}
	return sortedKeys(set)
}

// ExprMetrics are the metric and recorded-series names of an expression.
func ExprMetrics(expr string) []string {
	set := map[string]bool{}
	for _, m := range metricRE.FindAllStringSubmatch(expr, -1) {
		set[m[1]] = true
	}
	return sortedKeys(set)
}
