package main

import (
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/kafka-bench/kafka_bench_exporter/alerts"
)

// targetLabels are added by Prometheus, not the exporter (cluster by the
// scrape configuration); le by histograms.
var targetLabels = map[string]bool{"job": true, "instance": true, "cluster": true, "le": true, "__name__": true}

// checkRuleLabels: each label a rule names (grouping, matching, selectors,
// $labels in annotations) is on at least one metric its expression reads,
// recorded series resolved to the metrics they are recorded from.
func checkRuleLabels(rules []alerts.Rule, labels map[string]map[string]bool) []string {
	recorded := map[string][]string{}
	for _, r := range rules {
		if r.Record != "" {
			recorded[r.Record] = append(recorded[r.Record], exprMetrics(r.Expr)...)
		}
	}
	var base func(name string, seen map[string]bool) []string
	base = func(name string, seen map[string]bool) []string {
		if seen[name] {
			return nil
		}
		seen[name] = true
		src, ok := recorded[name]
		if !ok {
			return []string{name}
		}
		var out []string
		for _, s := range src {
			out = append(out, base(s, seen)...)
		}
		return out
	}
	var problems []string
	for _, r := range rules {
		metrics := map[string]bool{}
		for _, m := range exprMetrics(r.Expr) {
			for _, b := range base(m, map[string]bool{}) {
				metrics[strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(b, "_bucket"), "_count"), "_sum")] = true
			}
		}
		text := r.Expr
		for _, a := range r.Annotations {
			text += "\n" + a
		}
		for _, l := range exprLabels(text) {
			if targetLabels[l] || r.Labels[l] != "" {
				continue
			}
			if !slices.ContainsFunc(slices.Collect(maps.Keys(metrics)), func(m string) bool { return labels[m][l] }) {
				problems = append(problems, fmt.Sprintf("alerts/%s: rule %s names label %s, which none of %v has", r.File, r.Alert+r.Record, l, slices.Sorted(maps.Keys(metrics))))
			}
		}
	}
	return problems
}

var (
	groupingRE = regexp.MustCompile(`\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)`)
	matcherRE  = regexp.MustCompile(`\{([^}]*)\}`)
	matcherKey = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)`)
	templateRE = regexp.MustCompile(`\$labels\.([a-zA-Z_][a-zA-Z0-9_]*)`)
	exprNameRE = regexp.MustCompile(`\b([a-z_][a-z0-9_]*:[a-z0-9_:]+|kafka_bench_[a-z0-9_]+|up)\b`)
)

// exprLabels are the label names a PromQL expression or an annotation
// template names: grouping and matching clauses, selectors, $labels.x.
func exprLabels(s string) []string {
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
	return slices.Sorted(maps.Keys(set))
}

// exprMetrics are the metric and recorded-series names of an expression.
func exprMetrics(expr string) []string {
	set := map[string]bool{}
	for _, m := range exprNameRE.FindAllStringSubmatch(expr, -1) {
		set[m[1]] = true
	}
	return slices.Sorted(maps.Keys(set))
}

func TestExprLabels(t *testing.T) {
	expr := `sum by (job, probe) (rate(m_total{reason=~"a|b"}[5m])) > on () group_left () x:y:z and {{ $labels.instance }}`
	if got := exprLabels(expr); !reflect.DeepEqual(got, []string{"instance", "job", "probe", "reason"}) {
		t.Errorf("exprLabels = %q", got)
	}
	if got := exprMetrics("sum(rate(kafka_bench_a_total[5m])) / kafka_bench:b:rate5m"); !reflect.DeepEqual(got, []string{"kafka_bench:b:rate5m", "kafka_bench_a_total"}) {
		t.Errorf("exprMetrics = %q", got)
	}
}
