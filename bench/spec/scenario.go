// Package spec is the bench file of the one-shot benchmark mode: a bench
// file (or a few flags) expands into scenarios, each run with the daemon's
// probe engine (package run) and reported in Kafka's perf-tool formats and
// as a seeds-style table (package report).
package spec

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/common/model"
	"go.yaml.in/yaml/v3"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/yamlnode"
)

// TopicPrefix starts the name of every topic the bench creates itself; only
// such topics are deleted afterwards.
const TopicPrefix = config.DefaultTopicPrefix + "bench-"

const (
	defaultDrainTimeout = time.Minute
	maxScenarios        = 1000
	maxLabelLength      = 64
)

// File is the bench file's top level. Defaults, Scenarios and Matrix are kept
// as YAML nodes: each scenario is built by merging them, so that the probe
// defaults apply exactly once and a matrix value is checked like a file value.
type File struct {
	Kafka config.Kafka `yaml:"kafka"`
	// NumRecords or Duration (exactly one) bounds each scenario's measured
	// part; warm-up records come on top.
	NumRecords    int64          `yaml:"num_records"`
	Duration      model.Duration `yaml:"duration"`
	WarmupRecords int64          `yaml:"warmup_records"`
	// Rate is every scenario's rate unless the probe keys set one; 0 sends
	// as fast as buffer.memory allows.
	Rate float64 `yaml:"rate"`
	// DeleteTopics deletes the topics (and groups) the bench created.
	DeleteTopics bool `yaml:"delete_topics"`
	// DrainTimeout is how long the consumer may read nothing while records
	// are still missing, once producing is over, before the scenario fails.
	DrainTimeout model.Duration `yaml:"drain_timeout"`
	// ConsumeOnly reads an existing, pre-filled topic without producing
	// (ConsumerPerformance's job); the topic must be named.
	ConsumeOnly bool `yaml:"consume_only"`
	// ReadDelay, with consume_only, waits before the read until the
	// topic's newest record is this old: a read of a backlog, not of
	// records just written.
	ReadDelay model.Duration `yaml:"read_delay"`
	// Cold, with consume_only, drops the page cache of the topic's segment
	// files before the read, where the brokers' log directories are on this
	// machine (posix_fadvise DONTNEED; coldcache.go in bench/run).
	Cold bool `yaml:"cold"`
	// FindMaxRate runs each scenario's capacity ramp once instead of a
	// fixed-rate run: the highest rate within its latency SLO.
	FindMaxRate bool      `yaml:"find_max_rate"`
	Defaults    yaml.Node `yaml:"defaults"`
	Scenarios   yaml.Node `yaml:"scenarios"`
	Matrix      yaml.Node `yaml:"matrix"`

	// Hosts are the machines measured besides the bench's own (hosts.go).
	Hosts []HostEntry `yaml:"hosts"`
	// Rounds repeats every scenario, each round in a shuffled order;
	// Baseline names the scenario the others are compared with (rounds.go).
	Rounds   int    `yaml:"rounds"`
	Baseline string `yaml:"baseline"`
	// Restart restarts a broker for static broker settings (restart.go).
	Restart *Restart `yaml:"restart"`
}

// SetDefaults fills what the file does not set.
func (f *File) SetDefaults() {
	f.Kafka.SetDefaults()
	f.DeleteTopics = true
	f.DrainTimeout = model.Duration(defaultDrainTimeout)
	f.Rounds = 1
}

// Validate checks the top-level settings; scenarios are checked as they are
// expanded.
func (f *File) Validate() error {
	switch {
	case f.FindMaxRate && f.ConsumeOnly:
		return config.FieldError("", "find_max_rate", true, "consume_only does not produce: set one of them")
	case f.ReadDelay > 0 && !f.ConsumeOnly:
		return config.FieldError("", "read_delay", f.ReadDelay, "applies to consume_only: the delay between a pre-filled topic's newest record and its read")
	case f.Cold && !f.ConsumeOnly:
		return config.FieldError("", "cold", true, "applies to consume_only: the page cache of a pre-filled topic is dropped before its read")
	case f.FindMaxRate && (f.NumRecords != 0 || f.Duration != 0):
		return config.FieldError("", "find_max_rate", true, "each scenario runs its capacity ramp (capacity.step_duration per step): remove num_records and duration")
	case f.NumRecords < 0:
		return config.FieldError("", "num_records", f.NumRecords, "must be >= 0")
	case f.NumRecords == 0 && f.Duration == 0 && !f.FindMaxRate:
		return config.FieldError("", "num_records", f.NumRecords, "set num_records or duration (exactly one)")
	case f.NumRecords > 0 && f.Duration != 0:
		return config.FieldError("", "duration", f.Duration, "num_records is set too: set exactly one")
	case f.Duration < 0:
		return config.FieldError("", "duration", f.Duration, "must be > 0")
	case f.WarmupRecords < 0:
		return config.FieldError("", "warmup_records", f.WarmupRecords, "must be >= 0")
	case f.DrainTimeout <= 0:
		return config.FieldError("", "drain_timeout", f.DrainTimeout, "must be > 0")
	case f.Rounds < 1 || f.Rounds > MaxRounds:
		return config.FieldError("", "rounds", f.Rounds, fmt.Sprintf("must be 1 ... %d", MaxRounds))
	}
	if err := config.CheckRate("", "rate", f.Rate, 0, "must be >= 0 (0 = as fast as possible)"); err != nil {
		return err
	}
	for _, b := range f.Kafka.Brokers {
		if b == "" {
			return config.FieldError("", "kafka.brokers", b, "empty broker address")
		}
	}
	if f.Restart != nil {
		if err := f.Restart.validate(); err != nil {
			return err
		}
	}
	return validateHosts(f.Hosts)
}

// Bench is a bench file after expansion: what every scenario shares and the
// scenarios in run order.
type Bench struct {
	// Kafka is the kafka block; resolved (its files read) by Load.
	Kafka         config.Cluster
	NumRecords    int64
	Duration      time.Duration
	WarmupRecords int64
	DeleteTopics  bool
	DrainTimeout  time.Duration
	ConsumeOnly   bool
	// ReadDelay and Cold are the file's read_delay and cold (consume_only).
	ReadDelay time.Duration
	Cold      bool
	Hosts     []HostEntry
	Rounds    int
	// Baseline is the Name of the scenario the others are compared with,
	// set when rounds >= MinVerdictRounds.
	Baseline    string
	FindMaxRate bool
	// Restart is the restart block; nil refuses static broker settings.
	Restart *Restart
	// ParamKeys name the parameters that tell scenarios apart, in the order
	// of the file: "scenario" for explicit scenarios, then the matrix keys.
	ParamKeys []string
	Scenarios []Scenario
}

// Scenario is one run of the probe engine.
type Scenario struct {
	// Name is the scenario's own name, the matrix values, or both:
	// "linger-20,record_size=100,acks=1"; empty for the defaults alone.
	Name string
	// Params are the values of Bench.ParamKeys, in the same order.
	Params []string
	// Probe is the effective probe; its Name is Name made into a valid
	// probe label.
	Probe config.Probe
	// OwnTopic: the topic name was generated, so the bench creates it and
	// may delete it; a topic named in the file is never deleted.
	OwnTopic bool
	// OwnGroup: the group id was generated.
	OwnGroup bool
	// Configs are the broker and topic settings applied while the scenario
	// runs, sorted by key.
	Configs []ConfigSetting
	// Payload are the entries of the probe's payload file, read by Load.
	Payload [][]byte
	// The runner appends its sweep id to generated names, so that each run
	// has a topic and a group of its own.
}

// DisplayName is Name, or "defaults" for the defaults alone.
func (s Scenario) DisplayName() string { return DisplayName(s.Name) }

// DisplayName is how the scenario named name is shown in reports, results
// and errors: its name, or "defaults" for the one without (the defaults
// alone).
func DisplayName(name string) string {
	if name == "" {
		return "defaults"
	}
	return name
}

// Load reads the bench file path and expands it to run it (LoadData).
func Load(path string) (*Bench, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return LoadData(path, data)
}

// LoadData expands the text data of the bench file path to run it: unlike
// Parse, it also validates the kafka block (tls and sasl, reading the files
// they name, relative to the working directory as the bench file's other
// paths are), so that a bad one is a one-line error now and not at the
// first connection. Parse alone (a report made from the file) needs none of
// the cluster's files. Its errors name path.
func LoadData(path string, data []byte) (*Bench, error) {
	b, err := Parse(data)
	if err == nil {
		err = b.Resolve()
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}

// Resolve validates the kafka block and reads the files it and the
// scenarios' payloads name (config's resolve step).
func (b *Bench) Resolve() error {
	if err := b.Kafka.Kafka.Validate(); err != nil {
		return err
	}
	k, err := config.ResolveKafka(b.Kafka.Kafka, "")
	if err != nil {
		return err
	}
	b.Kafka = k
	for i := range b.Hosts {
		if err := b.Hosts[i].resolve(); err != nil {
			return err
		}
	}
	for i := range b.Scenarios {
		s := &b.Scenarios[i]
		rp, err := config.ResolveProbe(s.Probe, "")
		if err != nil {
			scope := fmt.Sprintf("scenario %q", s.Name)
			if s.Name == "" {
				scope = "defaults"
			}
			return errors.New(scope + ": " + strings.TrimPrefix(err.Error(), fmt.Sprintf("probe %q: ", s.Probe.Name)))
		}
		s.Probe, s.Payload = rp.Probe, rp.Payload()
	}
	return nil
}

// Parse checks a bench file strictly (unknown keys and wrongly typed values
// are one-line errors naming the scenario, the key and the value), expands
// scenarios × matrix and validates every resulting probe.
func Parse(data []byte) (*Bench, error) {
	doc, err := config.OneDocument(data, "a bench file")
	if err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 || doc.Content[0].Tag == "!!null" {
		return nil, errors.New("the bench file is empty: it needs num_records or duration, and probe settings under defaults")
	}
	root := doc.Content[0]
	var f File
	f.SetDefaults()
	if root.Kind != yaml.MappingNode {
		return nil, errors.New("the bench file must be a mapping of keys such as kafka, defaults, num_records, scenarios and matrix")
	}
	// The top level is checked without the probe sections, which are
	// checked below with a scope naming the scenario.
	top := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "defaults":
			f.Defaults = *v
		case "scenarios":
			f.Scenarios = *v
		case "matrix":
			f.Matrix = *v
		default:
			top.Content = append(top.Content, k, v)
		}
	}
	if err := config.DecodeStrict(top, &f, "", ""); err != nil {
		return nil, err
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return f.expand()
}

// base is one explicit scenario (or the defaults alone) before the matrix.
type base struct {
	name     string
	node     *yaml.Node
	settings []ConfigSetting
}

func (f *File) expand() (*Bench, error) {
	defaults, defaultSettings, err := splitConfigKeys(&f.Defaults, "defaults")
	if err != nil {
		return nil, err
	}
	f.Defaults = *defaults
	if err := checkProbeNode(&f.Defaults, "defaults"); err != nil {
		return nil, err
	}
	bases, err := f.bases()
	if err != nil {
		return nil, err
	}
	axes, err := parseMatrix(&f.Matrix)
	if err != nil {
		return nil, err
	}
	total := len(bases)
	for _, a := range axes {
		total *= len(a.values)
		if total > maxScenarios {
			return nil, config.FieldError("", "matrix", config.RawValue("{...}"), fmt.Sprintf("expands to more than %d scenarios", maxScenarios))
		}
	}

	b := &Bench{
		Kafka:         config.Cluster{Kafka: f.Kafka},
		NumRecords:    f.NumRecords,
		Duration:      time.Duration(f.Duration),
		WarmupRecords: f.WarmupRecords,
		DeleteTopics:  f.DeleteTopics,
		DrainTimeout:  time.Duration(f.DrainTimeout),
		ConsumeOnly:   f.ConsumeOnly,
		ReadDelay:     time.Duration(f.ReadDelay),
		Cold:          f.Cold,
		Hosts:         f.Hosts,
		Rounds:        f.Rounds,
		FindMaxRate:   f.FindMaxRate,
		Restart:       f.Restart,
	}
	explicit := bases[0].node != nil
	if explicit {
		b.ParamKeys = append(b.ParamKeys, "scenario")
	}
	for _, a := range axes {
		b.ParamKeys = append(b.ParamKeys, a.key)
	}
	labels := map[string]bool{}
	for _, bs := range bases {
		for _, combo := range cartesian(axes) {
			s, err := f.scenario(bs, axes, combo, labels)
			if err != nil {
				return nil, err
			}
			s.Configs = mergeSettings(mergeSettings(defaultSettings, bs.settings), axisSettings(axes, combo))
			b.Scenarios = append(b.Scenarios, s)
		}
	}
	if err := f.roundsAndBaseline(b); err != nil {
		return nil, err
	}
	return b, nil
}

// bases are the explicit scenarios, or one unnamed base when there are none.
func (f *File) bases() ([]base, error) {
	n := &f.Scenarios
	if n.Kind == 0 || n.Tag == "!!null" {
		return []base{{}}, nil
	}
	if n.Kind != yaml.SequenceNode {
		// Let the configuration checker word it, as for probes.
		return nil, config.DecodeStrict(n, &[]config.Probe{}, "", "scenarios")
	}
	if len(n.Content) == 0 {
		return nil, config.FieldError("", "scenarios", config.RawValue("[]"), "lists no scenario: remove the key to run the defaults alone")
	}
	seen := map[string]bool{}
	var out []base
	for i, item := range n.Content {
		name := mappingValue(item, "name")
		scope := fmt.Sprintf("scenarios[%d]", i)
		if name != "" {
			scope = fmt.Sprintf("scenario %q", name)
		}
		probe, settings, err := splitConfigKeys(item, scope)
		if err != nil {
			return nil, err
		}
		if err := checkProbeNode(probe, scope); err != nil {
			return nil, err
		}
		if name == "" {
			return nil, config.FieldError(scope, "name", "", "every scenario needs a name")
		}
		if seen[name] {
			return nil, config.FieldError(scope, "name", name, "duplicate scenario name")
		}
		seen[name] = true
		out = append(out, base{name: name, node: probe, settings: settings})
	}
	return out, nil
}

// checkProbeNode checks a mapping of probe keys (defaults or a scenario).
func checkProbeNode(n *yaml.Node, scope string) error {
	if n.Kind == 0 || n.Tag == "!!null" {
		return nil
	}
	var p config.Probe
	return config.DecodeStrict(n, &p, scope, "")
}

// scenario builds one expanded scenario: the bench's rate, then defaults,
// then the explicit scenario, then the matrix values, merged as YAML and
// decoded once, so every probe default applies exactly as in the daemon.
func (f *File) scenario(bs base, axes []axis, combo []int, labels map[string]bool) (Scenario, error) {
	merged := yamlnode.Mapping()
	yamlnode.SetPath(merged, []string{"rate"}, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: strconv.FormatFloat(f.Rate, 'g', -1, 64)})
	yamlnode.Merge(merged, &f.Defaults, false)
	var parts, params []string
	if bs.node != nil {
		yamlnode.Merge(merged, bs.node, false)
		parts = append(parts, bs.name)
		params = append(params, bs.name)
	}
	for i, a := range axes {
		v := a.values[combo[i]]
		if a.setting == nil {
			yamlnode.SetPath(merged, a.path, yamlnode.DeepCopy(v))
		}
		parts = append(parts, a.key+"="+v.Value)
		params = append(params, v.Value)
	}
	name := strings.Join(parts, ",")
	scope := fmt.Sprintf("scenario %q", name)
	if name == "" {
		scope = "defaults"
	}

	var p config.Probe
	if err := config.DecodeStrict(merged, &p, scope, ""); err != nil {
		return Scenario{}, err
	}
	s := Scenario{Name: name, Params: params, OwnTopic: p.Topic == "", OwnGroup: p.Consumer.GroupID == ""}
	hash := scenarioHash(name, p)
	p.Name = uniqueLabel(name, hash, labels)
	if s.OwnTopic {
		p.Topic = TopicPrefix + hash
	}
	if s.OwnGroup {
		p.Consumer.GroupID = p.Topic
	}
	p.Resolve()
	if err := p.Validate(); err != nil {
		// Validate names the probe label; the user knows the scenario.
		return Scenario{}, errors.New(scope + ": " + strings.TrimPrefix(err.Error(), fmt.Sprintf("probe %q: ", p.Name)))
	}
	if f.FindMaxRate && p.Capacity == nil {
		return Scenario{}, config.FieldError(scope, "capacity", config.RawValue("(none)"), "find_max_rate needs a capacity block: start_rate, growth, max_rate or max_bytes_per_second, latency_slo")
	}
	if f.ConsumeOnly {
		switch {
		case s.OwnTopic:
			return Scenario{}, config.FieldError(scope, "topic", "", "consume_only reads an existing topic: name it in defaults or in the scenario")
		case !p.Consumer.Enabled:
			return Scenario{}, config.FieldError(scope, "consumer.enabled", false, "consume_only needs the consumer")
		}
	}
	s.Probe = p
	return s, nil
}
