package readme

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Family is what the exposition says of one metric family.
type Family struct {
	Type   string // counter, gauge, histogram, summary, untyped
	Labels map[string]bool
}

// Ref is a label a text names on a metric: `metric` by `label`,
// `metric` by label, or `metric{label,...}`.
type Ref struct {
	Line   int
	Metric string
	Label  string
}

var (
	refByRE     = regexp.MustCompile("`([a-z_:][a-z0-9_:]*)` by `?([a-z_][a-z0-9_]*)`?")
	refLabelsRE = regexp.MustCompile("`([a-z_:][a-z0-9_:]*)\\{([a-z_][a-z0-9_, ]*)\\}`")
)

// Refs finds the labels a section's prose names on metrics.
func (d *Doc) Refs(s Section) []Ref {
	var refs []Ref
	d.prose(s.Line, s.End-1, func(i int, l string) {
		for _, m := range refByRE.FindAllStringSubmatch(l, -1) {
			refs = append(refs, Ref{Line: i + 1, Metric: m[1], Label: m[2]})
		}
		for _, m := range refLabelsRE.FindAllStringSubmatch(l, -1) {
			for l := range strings.SplitSeq(m[2], ",") {
				refs = append(refs, Ref{Line: i + 1, Metric: m[1], Label: strings.TrimSpace(l)})
			}
		}
	})
	return refs
}

// CheckRefs holds label references to the exposition.
func (d *Doc) CheckRefs(s Section, families map[string]Family) []string {
	var problems []string
	for _, r := range d.Refs(s) {
		f, ok := families[r.Metric]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("%s:%d (section %q): names %s, which the exporter does not expose", d.Path, r.Line, s.Title, r.Metric))
		case !f.Labels[r.Label]:
			problems = append(problems, fmt.Sprintf("%s:%d (section %q): names label %s on %s, which has {%s}", d.Path, r.Line, s.Title, r.Label, r.Metric, strings.Join(sortedKeys(f.Labels), ",")))
		}
	}
	return problems
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
