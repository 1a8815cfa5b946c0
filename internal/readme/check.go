package readme

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/prometheus/common/model"
)

// Flag is a command-line flag of the program (from the kingpin model).
type Flag struct {
	Name    string // without --
	Default string // "" when none
	Bool    bool
	Help    string // suggests the meaning of a missing row
}

var flagNameRE = regexp.MustCompile(`^--(?:\[no-\])?([a-z0-9][a-z0-9._-]*)$`)

// CheckFlags holds a flag table (column 0 the flags, column 1 the defaults)
// to the program's flags: every flag documented once, nothing else, and
// each default as the program's.
func CheckFlags(t *Table, flags []Flag) []string {
	problems := t.Check()
	byName := map[string]Flag{}
	for _, f := range flags {
		byName[f.Name] = f
	}
	seen := map[string]bool{}
	for _, r := range t.Rows {
		var names []string
		for _, c := range Code(r.Cell(0)) {
			if m := flagNameRE.FindStringSubmatch(c); m != nil {
				names = append(names, m[1])
			}
		}
		if len(names) == 0 {
			problems = append(problems, fmt.Sprintf("%s: no `--flag` in the first column", t.Where(r.Line)))
			continue
		}
		defaults := []string{r.Cell(1)}
		if len(names) > 1 {
			if parts := strings.Split(r.Cell(1), ","); len(parts) == len(names) {
				defaults = parts
			}
		}
		for i, name := range names {
			if seen[name] {
				problems = append(problems, fmt.Sprintf("%s: --%s is documented twice", t.Where(r.Line), name))
			}
			seen[name] = true
			f, ok := byName[name]
			if !ok {
				problems = append(problems, fmt.Sprintf("%s: documents --%s, which the program does not have: remove it or add the flag", t.Where(r.Line), name))
				continue
			}
			doc := defaults[min(i, len(defaults)-1)]
			if !sameDefault(doc, f) {
				problems = append(problems, fmt.Sprintf("%s: --%s default documented as %q, the program's is %q", t.Where(r.Line), name, doc, f.Default))
			}
		}
	}
	for _, f := range flags {
		if !seen[f.Name] {
			name := "--" + f.Name
			if f.Bool {
				name = "--[no-]" + f.Name
			}
			problems = append(problems, fmt.Sprintf("%s: --%s (default %q) is not documented: add a row | `%s` | %s | %s |",
				t.Where(t.end()), f.Name, f.Default, name, f.Default, f.Help))
		}
	}
	return problems
}

// end is the line after the table, where a missing row goes.
func (t *Table) end() int {
	if len(t.Rows) == 0 {
		return t.Line + 2
	}
	return t.Rows[len(t.Rows)-1].Line + 1
}

func sameDefault(doc string, f Flag) bool {
	d := plain(doc)
	if d == "(empty)" {
		d = ""
	}
	if f.Bool && (d == "" || d == "false") {
		return f.Default == "" || f.Default == "false"
	}
	return d == f.Default
}

// plain drops backticks and surrounding space.
func plain(s string) string { return strings.TrimSpace(strings.ReplaceAll(s, "`", "")) }

// CheckKeys holds a configuration key table (column 0 the keys, column 1
// the defaults) to the schema: keys maps every leaf key path of the schema
// (probes[].producer.acks) to its effective default, as --config.check
// prints it. A documented key may leave out a unique prefix
// (producer.acks); a default in parentheses or empty means "none" and the
// effective value must be empty, except "(required)"; otherwise the first
// word of the cell must equal the effective value (durations compared as
// durations). subst replaces placeholders such as <name> in defaults.
func CheckKeys(t *Table, keys map[string]string, subst map[string]string) []string {
	problems := t.Check()
	seen := map[string]bool{}
	for _, r := range t.Rows {
		docKeys := Code(r.Cell(0))
		if len(docKeys) == 0 {
			problems = append(problems, fmt.Sprintf("%s: no `key` in the first column", t.Where(r.Line)))
		}
		for _, k := range docKeys {
			full, err := resolveKey(k, keys)
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s: %v", t.Where(r.Line), err))
				continue
			}
			if seen[full] {
				problems = append(problems, fmt.Sprintf("%s: %s is documented twice", t.Where(r.Line), k))
			}
			seen[full] = true
			if p := checkDefault(r.Cell(1), keys[full], subst); p != "" {
				problems = append(problems, fmt.Sprintf("%s: %s default documented as %q, the program's is %q: %s", t.Where(r.Line), k, r.Cell(1), keys[full], p))
			}
		}
	}
	var missing []string
	for k := range keys {
		if !seen[k] {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	for _, k := range missing {
		problems = append(problems, fmt.Sprintf("%s: key %s (default %q) is not documented: add a row", t.Where(t.end()), k, keys[k]))
	}
	return problems
}

func resolveKey(k string, keys map[string]string) (string, error) {
	if _, ok := keys[k]; ok {
		return k, nil
	}
	var found []string
	for full := range keys {
		if strings.HasSuffix(full, "."+k) {
			found = append(found, full)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return "", fmt.Errorf("documents key %s, which the configuration does not have: remove it or add the key", k)
	}
	sort.Strings(found)
	return "", fmt.Errorf("key %s is ambiguous (%s): write it in full", k, strings.Join(found, ", "))
}

func checkDefault(cell, effective string, subst map[string]string) string {
	d := plain(cell)
	for from, to := range subst {
		d = strings.ReplaceAll(d, from, to)
	}
	switch {
	case d == "(required)":
		return ""
	case d == "" || strings.HasPrefix(d, "("):
		if !isEmpty(effective) {
			return "a default in parentheses or none means the key is unset by default"
		}
		return ""
	}
	word := strings.Fields(d)[0]
	if sameValue(word, effective) || sameValue(d, effective) {
		return ""
	}
	return "the first word of the cell must be the default"
}

func isEmpty(v string) bool {
	return v == "" || v == "[]" || v == "{}" || v == "false" || v == "0"
}

func sameValue(doc, effective string) bool {
	if doc == effective || isEmpty(doc) && isEmpty(effective) && doc != "false" && doc != "0" {
		return true
	}
	// A quoted default such as "\n" stands for the string it spells.
	if u, err := strconv.Unquote(doc); err == nil && u == effective {
		return true
	}
	a, errA := model.ParseDuration(doc)
	b, errB := model.ParseDuration(effective)
	return errA == nil && errB == nil && a == b
}

// Family is what the exposition says of one metric family.
type Family struct {
	Type   string // counter, gauge, histogram, summary, untyped
	Labels map[string]bool
}

// implicitLabels are carried by every probe metric and said once, above the
// table, rather than in each row.
var implicitLabels = map[string]bool{"probe": true}

// metric is one name of a metrics table row.
type metric struct {
	name   string // may hold * (a prefix family)
	labels []string
	typ    string // "" when the row does not say
}

// CheckMetrics holds a metrics table (column 0 the names with their labels,
// e.g. `kafka_bench_x_total{reason}` or `kafka_bench_host_disk_{read,written}_bytes_total{device}`,
// column 1 the types, one per name or one for all, "gauge = 1" a gauge) to
// the real exposition: every family documented, nothing else, with its
// type and labels (probe may go unsaid).
func CheckMetrics(t *Table, families map[string]Family) []string {
	problems := t.Check()
	documented := map[string]bool{}
	var patterns []*regexp.Regexp
	for _, r := range t.Rows {
		ms, err := parseMetrics(r)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", t.Where(r.Line), err))
			continue
		}
		for _, m := range ms {
			if strings.Contains(m.name, "*") {
				re := regexp.MustCompile("^" + strings.ReplaceAll(regexp.QuoteMeta(m.name), `\*`, "[a-z0-9_:]*") + "$")
				patterns = append(patterns, re)
				n := 0
				for name, f := range families {
					if re.MatchString(name) {
						n++
						problems = append(problems, checkLabels(t, r, name, m.labels, f, false)...)
					}
				}
				if n == 0 {
					problems = append(problems, fmt.Sprintf("%s: %s matches no metric the exporter exposes", t.Where(r.Line), m.name))
				}
				continue
			}
			if documented[m.name] {
				problems = append(problems, fmt.Sprintf("%s: %s is documented twice", t.Where(r.Line), m.name))
			}
			documented[m.name] = true
			f, ok := families[m.name]
			if !ok {
				problems = append(problems, fmt.Sprintf("%s: documents %s, which the exporter does not expose: remove it or fix the name", t.Where(r.Line), m.name))
				continue
			}
			if m.typ != "" && m.typ != f.Type {
				problems = append(problems, fmt.Sprintf("%s: %s is documented as a %s, the exporter exposes a %s", t.Where(r.Line), m.name, m.typ, f.Type))
			}
			problems = append(problems, checkLabels(t, r, m.name, m.labels, f, true)...)
		}
	}
	var names []string
	for name := range families {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if documented[name] || slices.ContainsFunc(patterns, func(re *regexp.Regexp) bool { return re.MatchString(name) }) {
			continue
		}
		f := families[name]
		problems = append(problems, fmt.Sprintf("%s: the exporter exposes %s (%s, labels {%s}), which is not documented: add a row",
			t.Where(t.end()), name, f.Type, strings.Join(sortedKeys(f.Labels), ",")))
	}
	return problems
}

// checkLabels: every documented label exists; with exact, every label of
// the family (but the implicit ones) is documented.
func checkLabels(t *Table, r Row, name string, labels []string, f Family, exact bool) []string {
	var problems []string
	for _, l := range labels {
		if !f.Labels[l] {
			problems = append(problems, fmt.Sprintf("%s: %s is documented with label %s, which it does not have (labels: {%s})",
				t.Where(r.Line), name, l, strings.Join(sortedKeys(f.Labels), ",")))
		}
	}
	if !exact {
		return problems
	}
	for _, l := range sortedKeys(f.Labels) {
		if !implicitLabels[l] && !slices.Contains(labels, l) {
			problems = append(problems, fmt.Sprintf("%s: %s has label %s, which the row does not name: write %s{%s}",
				t.Where(r.Line), name, l, name, strings.Join(nonImplicit(f.Labels), ",")))
		}
	}
	return problems
}

func nonImplicit(labels map[string]bool) []string {
	var out []string
	for _, l := range sortedKeys(labels) {
		if !implicitLabels[l] {
			out = append(out, l)
		}
	}
	return out
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

var typeWords = map[string]bool{"counter": true, "gauge": true, "histogram": true, "summary": true}

// parseMetrics reads the names, labels and types of one metrics table row.
func parseMetrics(r Row) ([]metric, error) {
	var out []metric
	var perSpan [][]metric
	for _, span := range Code(r.Cell(0)) {
		name, labels := span, []string(nil)
		if strings.HasSuffix(span, "}") {
			if i := strings.LastIndex(span, "{"); i > 0 {
				name = span[:i]
				for _, l := range strings.Split(span[i+1:len(span)-1], ",") {
					labels = append(labels, strings.TrimSpace(l))
				}
			}
		}
		var ms []metric
		for _, n := range Expand(name) {
			ms = append(ms, metric{name: n, labels: labels})
		}
		perSpan = append(perSpan, ms)
	}
	if len(perSpan) == 0 {
		return nil, fmt.Errorf("no `metric_name` in the first column")
	}
	var types []string
	for _, part := range strings.Split(plain(r.Cell(1)), "/") {
		if w := strings.Fields(part); len(w) > 0 && typeWords[w[0]] {
			types = append(types, w[0])
		} else if len(w) > 0 && w[0] != "various" {
			return nil, fmt.Errorf("type %q is not one of counter, gauge, histogram, summary (or various)", part)
		}
	}
	for i, ms := range perSpan {
		for _, m := range ms {
			switch len(types) {
			case 1:
				m.typ = types[0]
			case len(perSpan):
				m.typ = types[i]
			}
			out = append(out, m)
		}
	}
	if len(types) > 1 && len(types) != len(perSpan) {
		return nil, fmt.Errorf("%d types for %d names: give one type, or one per name separated by /", len(types), len(perSpan))
	}
	return out, nil
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
			for _, l := range strings.Split(m[2], ",") {
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
