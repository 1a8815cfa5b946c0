package doccheck

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// Names are what the program has, for the prose that names it.
type Names struct {
	Flags   map[string]bool // without the dashes: web.listen-address
	Keys    map[string]bool // config key paths, blocks included: kafka.tls, probes[].rate
	Metrics map[string]bool // families, recorded series, rule groups, the binary
}

var (
	flagRE   = regexp.MustCompile(`^--(?:\[no-\])?([a-z][a-z0-9.-]*)`)
	metricRE = regexp.MustCompile(`^((?:[a-z_]+:)?kafka_bench[_:][a-z0-9][a-z0-9_:]*)(\{[^}]*\})?$`)
	keyRE    = regexp.MustCompile(`^([a-z_]+(?:\[\])?)(\.[a-z_]+)+$`)
)

// CheckNames reports each code span of d's prose that names a flag
// (`--x`; `--x.*` is every flag of x), a metric (`kafka_bench_x`,
// `probe:kafka_bench_x:rate5m`) or a config key
// (`kafka.tls.ca_file`; `capacity.step_duration` of a probe) the program
// lacks. A Kafka property (dots, no underscore) is not a key.
func (d *Doc) CheckNames(n Names) []string {
	heads := map[string]bool{}
	for k := range n.Keys {
		heads[strings.Split(strings.TrimPrefix(k, "probes[]."), ".")[0]] = true
	}
	var problems []string
	d.prose(func(i int, l string) {
		for _, c := range Code(l) {
			var what string
			if m := flagRE.FindStringSubmatch(c); m != nil && !n.Flags[m[1]] && !n.Flags[strings.TrimPrefix(m[1], "no-")] &&
				!(strings.HasSuffix(m[1], ".") && slices.ContainsFunc(slices.Collect(maps.Keys(n.Flags)), func(f string) bool { return strings.HasPrefix(f, m[1]) })) {
				what = "flag --" + m[1] + ", which no command has"
			} else if m := metricRE.FindStringSubmatch(c); m != nil && !n.Metrics[m[1]] &&
				!slices.ContainsFunc([]string{"_bucket", "_count", "_sum"}, func(s string) bool { return n.Metrics[strings.TrimSuffix(m[1], s)] }) {
				what = "metric " + m[1] + ", which the exporter does not expose"
			} else if m := keyRE.FindStringSubmatch(c); m != nil && heads[m[1]] && !n.Keys[c] && !n.Keys["probes[]."+c] &&
				(m[1] == "kafka" || m[1] == "probes[]" || strings.Contains(c, "_")) {
				what = "config key " + c + ", which the configuration does not have"
			}
			if what != "" {
				problems = append(problems, fmt.Sprintf("%s:%d: names %s", d.Path, i+1, what))
			}
		}
	})
	return problems
}

var (
	refByRE     = regexp.MustCompile("`([a-z_:][a-z0-9_:]*)` by `?([a-z_][a-z0-9_]*)`?")
	refLabelsRE = regexp.MustCompile("`([a-z_:][a-z0-9_:]*)\\{([a-z_][a-z0-9_, ]*)\\}`")
)

// CheckLabels reports each label that d's prose names on a metric —
// `metric` by `label`, `metric{label,...}` — and the metric lacks: labels
// maps each family to its labels.
func (d *Doc) CheckLabels(labels map[string]map[string]bool) []string {
	var problems []string
	check := func(i int, metric, label string) {
		if have, ok := labels[metric]; !ok {
			problems = append(problems, fmt.Sprintf("%s:%d: names %s, which the exporter does not expose", d.Path, i+1, metric))
		} else if !have[label] {
			problems = append(problems, fmt.Sprintf("%s:%d: names label %s on %s, which has {%s}", d.Path, i+1, label, metric, strings.Join(slices.Sorted(maps.Keys(have)), ",")))
		}
	}
	d.prose(func(i int, l string) {
		for _, m := range refByRE.FindAllStringSubmatch(l, -1) {
			check(i, m[1], m[2])
		}
		for _, m := range refLabelsRE.FindAllStringSubmatch(l, -1) {
			for label := range strings.SplitSeq(m[2], ",") {
				check(i, m[1], strings.TrimSpace(label))
			}
		}
	})
	return problems
}
