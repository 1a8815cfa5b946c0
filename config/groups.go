package config

import (
	"fmt"
	"regexp"
	"time"

	"github.com/prometheus/common/model"
	"go.yaml.in/yaml/v3"
)

// Groups is the consumer groups block (package groups): every group of the
// cluster, of every type, polled in the background every Interval, its lag
// in records and in seconds, its state and a status exported from the last
// poll. On by default; enabled: false turns it off.
type Groups struct {
	Enabled     bool           `yaml:"enabled" doc:"every consumer group's lag in records and in seconds, its state and status (Consumer groups); false: off"`
	Interval    model.Duration `yaml:"interval" values:"≥ 1s" doc:"how often the groups are read; a scrape serves the last poll and never waits on Kafka"`
	Granularity string         `yaml:"granularity" values:"{group}, {topic}, {partition}" doc:"the labels of the lag families: {group} sums records (and takes the largest lag in seconds) over a group's partitions, {topic} per topic, {partition} per partition"`
	MaxSeries   int            `yaml:"max_series" values:"≥ 1" doc:"the most per-group series exported; past it the groups furthest behind in seconds are kept, whole, the others dropped and counted ({kafka_bench_group_series_dropped}), with one WARN"`
	// Allow and Deny select groups, Topics and TopicsDeny their topics,
	// by regular expressions that must match the whole name.
	Allow       []string       `yaml:"allow" default:"(empty: every group)" values:"regular expressions matching the whole name" doc:"groups to export; a name without regex meta characters that no broker lists is reported as not visible"`
	Deny        []string       `yaml:"deny" values:"regular expressions matching the whole name" doc:"groups left out, even when allowed"`
	TopicsAllow []string       `yaml:"topics_allow" default:"(empty: every topic)" values:"regular expressions matching the whole name" doc:"topics whose lag is exported"`
	TopicsDeny  []string       `yaml:"topics_deny" values:"regular expressions matching the whole name" doc:"topics left out, even when allowed"`
	ProbeGroups bool           `yaml:"probe_groups" doc:"true: the probes' own groups are exported here too (they have their own families, {kafka_bench_consumer_lag_records})"`
	StallWindow model.Duration `yaml:"stall_window" values:"≥ interval" doc:"a group with lag whose committed offsets did not move for this long is {stalled}; one with lag at every poll of it that is not shrinking is {lagging} (see How it measures)"`
}

// Group-block defaults and granularities.
const (
	DefaultGroupsInterval    = 30 * time.Second
	DefaultGroupsMaxSeries   = 100000
	DefaultGroupsStallWindow = 5 * time.Minute
	GranularityGroup         = "group"
	GranularityTopic         = "topic"
	GranularityPartition     = "partition"
	minGroupsInterval        = time.Second
)

// SetDefaults turns the block on, per topic, every 30 s.
func (g *Groups) SetDefaults() {
	g.Enabled = true
	g.Interval = model.Duration(DefaultGroupsInterval)
	g.Granularity = GranularityTopic
	g.MaxSeries = DefaultGroupsMaxSeries
	g.StallWindow = model.Duration(DefaultGroupsStallWindow)
}

// UnmarshalYAML fills the defaults of the keys the block leaves out.
func (g *Groups) UnmarshalYAML(n *yaml.Node) error {
	g.SetDefaults()
	type plain Groups
	return n.Decode((*plain)(g))
}

// Validate checks the block when it is on; it reads nothing.
func (g *Groups) Validate() error {
	if !g.Enabled {
		return nil // nothing of it is used
	}
	switch {
	case g.Interval < model.Duration(minGroupsInterval):
		return FieldError("", "groups.interval", g.Interval, "must be >= 1s")
	case g.Granularity != GranularityGroup && g.Granularity != GranularityTopic && g.Granularity != GranularityPartition:
		return FieldError("", "groups.granularity", g.Granularity, "must be one of group, topic, partition")
	case g.MaxSeries < 1:
		return FieldError("", "groups.max_series", g.MaxSeries, "must be >= 1")
	case g.StallWindow < g.Interval:
		return FieldError("", "groups.stall_window", g.StallWindow, fmt.Sprintf("must be >= groups.interval (%s): a window needs two polls", g.Interval))
	}
	for _, l := range []struct {
		key  string
		list []string
	}{{"groups.allow", g.Allow}, {"groups.deny", g.Deny}, {"groups.topics_allow", g.TopicsAllow}, {"groups.topics_deny", g.TopicsDeny}} {
		for _, s := range l.list {
			if _, err := anchored(s); err != nil {
				return FieldError("", l.key, s, "invalid regex: "+err.Error())
			}
		}
	}
	return nil
}

// anchored compiles s to match whole names only.
func anchored(s string) (*regexp.Regexp, error) {
	if _, err := regexp.Compile(s); err != nil {
		return nil, err
	}
	return regexp.Compile("^(?:" + s + ")$")
}

// NameFilter selects names by allow and deny lists of anchored regular
// expressions: a name passes when the allow list is empty or one of it
// matches, and none of the deny list does.
type NameFilter struct {
	allow, deny []*regexp.Regexp
	// Literal are the allow entries that name one group (no meta
	// characters): a name the cluster does not list is not visible.
	Literal []string
}

// NewNameFilter compiles validated lists (Groups.Validate); an invalid
// expression panics.
func NewNameFilter(allow, deny []string) NameFilter {
	var f NameFilter
	for _, s := range allow {
		re, err := anchored(s)
		if err != nil {
			panic(err)
		}
		f.allow = append(f.allow, re)
		if regexp.QuoteMeta(s) == s {
			f.Literal = append(f.Literal, s)
		}
	}
	for _, s := range deny {
		re, err := anchored(s)
		if err != nil {
			panic(err)
		}
		f.deny = append(f.deny, re)
	}
	return f
}

// Match reports whether name passes the filter.
func (f NameFilter) Match(name string) bool {
	ok := len(f.allow) == 0
	for _, re := range f.allow {
		if re.MatchString(name) {
			ok = true
			break
		}
	}
	if !ok {
		return false
	}
	for _, re := range f.deny {
		if re.MatchString(name) {
			return false
		}
	}
	return true
}
