// Package dashboards ships the Grafana dashboards of kafka_bench_exporter
// (kafka-bench-overview.json, kafka-bench-compare.json and
// kafka-bench-groups.json in this directory) and a helper that extracts their
// PromQL queries.
//
// The JSON files are provisioning-ready: stable uids, a ${datasource}
// template variable of type prometheus (no __inputs section, no hard-coded
// data source uid) and the template variables cluster, job, instance and
// probe (overview), job, instance, cluster_a, probe_a, cluster_b, probe_b
// and compare_offset (compare), or cluster, job, instance and group (consumer
// groups).
//
// Fleet rules every query keeps (the lint test enforces them): every
// aggregation keeps the cluster and instance labels, so exporters of
// different Kafka clusters are never added together; every latency quantile
// reads native histograms when Prometheus ingests them, or else the classic
// _bucket series.
package dashboards

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strings"
)

// Files holds the dashboard JSON files of this directory.
//
//go:embed *.json
var Files embed.FS

// Dashboard uids.
const (
	OverviewUID = "kafka-bench-overview"
	CompareUID  = "kafka-bench-compare"
	GroupsUID   = "kafka-bench-groups"
)

// HostDisks is the default of the Overview's host_disks variable: whole
// disks only, as config.DefaultDisks (a partition's IO is also its disk's).
const HostDisks = "(sd[a-z]+|vd[a-z]+|xvd[a-z]+|nvme[0-9]+n[0-9]+)"

// Query is one PromQL query of a dashboard panel target or annotation.
type Query struct {
	Dashboard  string // dashboard uid
	File       string // file name inside Files
	PanelTitle string // panel title as written (may hold variables); "annotation: <name>" for annotations
	RefID      string // target refId; "" for annotations
	Expr       string // the expression with template variables substituted
	Instant    bool   // the target is an instant query (stat and table panels)
	Format     string // "time_series", "table" or "heatmap"
	Annotation bool   // the query belongs to an annotation, not a panel
}

// DefaultVars returns the values Queries uses for variables the caller does
// not set: Grafana's built-in interval variables and "all" for the
// multi-value filters (and for cluster_a and cluster_b, which match every
// cluster). probe_a, probe_b and group (one consumer group, matched
// exactly) have no default. The Broker hosts
// row reads this exporter's host metrics (host_metrics=kafka_bench_host),
// which exist wherever the exporter runs; Grafana's default is node_exporter.
func DefaultVars() map[string]string {
	return map[string]string{
		"host_metrics":    "kafka_bench_host",
		"host_job":        ".*",
		"host_instance":   ".*",
		"host_disks":      HostDisks,
		"__rate_interval": "1m",
		"__interval":      "15s",
		"__range":         "1h",
		"cluster":         ".*",
		"cluster_a":       ".*",
		"cluster_b":       ".*",
		"job":             ".*",
		"instance":        ".*",
		"probe":           ".*",
		"compare_offset":  "1d",
	}
}

// FileNames returns the sorted names of the embedded dashboard files.
func FileNames() ([]string, error) {
	names, err := fs.Glob(Files, "*.json")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	return names, nil
}

var varRE = regexp.MustCompile(`\$\{([A-Za-z0-9_]+)(?::[^}]*)?\}|\$([A-Za-z0-9_]+)|\[\[([A-Za-z0-9_]+)(?::[^\]]*)?\]\]`)

// Substitute replaces Grafana template variables ($name, ${name},
// ${name:format}, [[name]]) in s by their values in vars, falling back to
// DefaultVars. It fails on a variable that has no value.
func Substitute(s string, vars map[string]string) (string, error) {
	defaults := DefaultVars()
	var missing []string
	out := varRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := varRE.FindStringSubmatch(m)
		name := sub[1] + sub[2] + sub[3]
		if v, ok := vars[name]; ok {
			return v
		}
		if v, ok := defaults[name]; ok {
			return v
		}
		missing = append(missing, name)
		return m
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("no value for template variable(s) %s in %q", strings.Join(missing, ", "), s)
	}
	return out, nil
}

type dashboardJSON struct {
	UID         string      `json:"uid"`
	Panels      []panelJSON `json:"panels"`
	Annotations struct {
		List []struct {
			Name string `json:"name"`
			Expr string `json:"expr"`
		} `json:"list"`
	} `json:"annotations"`
}

type panelJSON struct {
	Title   string      `json:"title"`
	Panels  []panelJSON `json:"panels"` // collapsed rows
	Targets []struct {
		RefID   string `json:"refId"`
		Expr    string `json:"expr"`
		Instant bool   `json:"instant"`
		Format  string `json:"format"`
	} `json:"targets"`
}

// Queries returns every PromQL query of every embedded dashboard (panel
// targets, including panels inside rows, and annotations), in file and
// panel order, with template variables substituted from vars (see
// Substitute and DefaultVars). For example:
//
//	Queries(map[string]string{"probe_a": "p1", "probe_b": "p2", "group": "g1"})
func Queries(vars map[string]string) ([]Query, error) {
	return QueriesIn(Files, vars)
}

// QueriesIn is Queries over the dashboards (*.json) of fsys, e.g. a
// rendering of the mixin with another _config.
func QueriesIn(fsys fs.FS, vars map[string]string) ([]Query, error) {
	names, err := fs.Glob(fsys, "*.json")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []Query
	for _, name := range names {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		var d dashboardJSON
		if err := json.Unmarshal(b, &d); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		var walk func([]panelJSON) error
		walk = func(panels []panelJSON) error {
			for _, p := range panels {
				for _, t := range p.Targets {
					if strings.TrimSpace(t.Expr) == "" {
						continue
					}
					expr, err := Substitute(t.Expr, vars)
					if err != nil {
						return fmt.Errorf("%s: panel %q: %w", name, p.Title, err)
					}
					format := t.Format
					if format == "" {
						format = "time_series"
					}
					out = append(out, Query{Dashboard: d.UID, File: name, PanelTitle: p.Title, RefID: t.RefID,
						Expr: expr, Instant: t.Instant, Format: format})
				}
				if err := walk(p.Panels); err != nil {
					return err
				}
			}
			return nil
		}
		if err := walk(d.Panels); err != nil {
			return nil, err
		}
		for _, a := range d.Annotations.List {
			if strings.TrimSpace(a.Expr) == "" {
				continue
			}
			expr, err := Substitute(a.Expr, vars)
			if err != nil {
				return nil, fmt.Errorf("%s: annotation %q: %w", name, a.Name, err)
			}
			out = append(out, Query{Dashboard: d.UID, File: name, PanelTitle: "annotation: " + a.Name,
				Expr: expr, Format: "time_series", Annotation: true})
		}
	}
	return out, nil
}
