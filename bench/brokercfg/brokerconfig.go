// Package brokercfg changes the broker and topic configurations a bench's
// scenarios set, and restores them.
package brokercfg

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/redact"
)

const (
	// configTimeout bounds applying a scenario's settings, and restoring
	// them, until every broker shows them.
	configTimeout = 30 * time.Second
	configPoll    = 100 * time.Millisecond
)

// resource is what a setting changes: one broker's configuration, or a
// topic's (which every broker must show).
type resource struct {
	broker int32 // the broker, for a broker configuration
	topic  string
}

func (r resource) String() string {
	if r.topic != "" {
		return "topic " + strconv.Quote(r.topic)
	}
	return "broker " + strconv.Itoa(int(r.broker))
}

// configState is one configuration as a broker describes it. It is
// sensitive when the broker says so or its name says so
// (redact.SensitiveKey: a broker other than Apache Kafka's may not set the
// flag); every value shown goes through redact.Value.
type configState struct {
	value     *string
	source    kmsg.ConfigSource
	readOnly  bool
	sensitive bool
}

// change is one setting applied, with what puts it back: the original value
// set again where it was set on the resource itself, else the value deleted
// (so the broker falls back to the same default, static or cluster-wide
// value as before).
type change struct {
	res      resource
	name     string
	value    string  // the scenario's value
	restore  *string // nil: delete the value
	original *string // the effective value before, which the restore must show again
}

// Changer applies scenarios' broker and topic settings with
// IncrementalAlterConfigs, waits until DescribeConfigs shows them on every
// broker, and restores the original values.
type Changer struct {
	cl      *kgo.Client
	adm     *kadm.Client
	kafka   config.Kafka
	logger  *slog.Logger
	brokers []int32
	hosts   map[int32]string
	pending []change // applied (or being applied) and not yet restored
	restart *restarter
}

// HasSettings tells whether any scenario changes the cluster.
func HasSettings(b *spec.Bench) bool {
	for _, s := range b.Scenarios {
		if len(s.Configs) > 0 {
			return true
		}
	}
	return false
}

// New makes the Changer of a bench's broker settings over cl, learning the
// cluster's broker ids so that a setting for a broker that is not there is
// refused.
func New(ctx context.Context, cl *kgo.Client, kafka config.Kafka, logger *slog.Logger) (*Changer, error) {
	c := &Changer{cl: cl, adm: kadm.NewClient(cl), kafka: kafka, logger: logger}
	bds, err := c.adm.ListBrokers(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing brokers: %w", err)
	}
	c.brokers = bds.NodeIDs()
	slices.Sort(c.brokers)
	c.hosts = map[int32]string{}
	for _, b := range bds {
		c.hosts[b.NodeID] = b.Host
	}
	c.restart, err = newRestarter(nil, c.hosts)
	return c, err
}

// Check refuses, before anything is changed, the broker settings the bench
// cannot apply and put back: an unknown broker or configuration, a static
// (read-only) one without a restart block, and a sensitive one (its value
// cannot be read back). With a restart block the static ones are changed
// through restarts.
func (c *Changer) Check(ctx context.Context, b *spec.Bench) error {
	r, err := newRestarter(b.Restart, c.hosts)
	if err != nil {
		return err
	}
	c.restart = r
	names := map[int32][]string{}
	for _, s := range b.Scenarios {
		for _, set := range s.Configs {
			if set.Topic {
				continue
			}
			if set.Broker != spec.AllBrokers && !slices.Contains(c.brokers, set.Broker) {
				return &RefusedError{config.FieldError(scenarioScope(s), set.Key, redact.ShownValue(set.Name, set.Value, false), fmt.Sprintf("no broker %d in the cluster (brokers: %s)", set.Broker, joinIDs(c.brokers)))}
			}
			for _, id := range c.targets(set) {
				if !slices.Contains(names[id], set.Name) {
					names[id] = append(names[id], set.Name)
				}
			}
		}
	}
	states := map[int32]map[string]configState{}
	for id, ns := range names {
		st, err := c.describe(ctx, id, resource{broker: id}, ns)
		if err != nil {
			return fmt.Errorf("describing the configuration of broker %d: %w", id, err)
		}
		states[id] = st
	}
	for _, s := range b.Scenarios {
		for _, set := range s.Configs {
			if set.Topic {
				continue
			}
			for _, id := range c.targets(set) {
				st, ok := states[id][set.Name]
				var problem string
				switch {
				case !ok:
					problem = fmt.Sprintf("broker %d has no configuration %q", id, set.Name)
				case st.sensitive:
					problem = "sensitive broker configuration: its value is not read back (Kafka does not return it), so the bench could not restore it"
				case st.readOnly && b.Restart == nil:
					problem = "static (read-only) broker configuration: it changes only in server.properties and with a restart; add a restart block to the bench file to change it with a rolling restart"
				case st.readOnly:
					c.restart.static[set.Name] = true
					continue
				default:
					continue
				}
				return &RefusedError{config.FieldError(scenarioScope(s), set.Key, redact.ShownValue(set.Name, set.Value, st.sensitive), problem)}
			}
		}
	}
	return nil
}

// RefusedError is a broker setting the bench refuses before it changes
// anything.
type RefusedError struct{ Err error }

func (e *RefusedError) Error() string { return e.Err.Error() }
func (e *RefusedError) Unwrap() error { return e.Err }

func scenarioScope(s spec.Scenario) string { return fmt.Sprintf("scenario %q", s.DisplayName()) }

// targets are the brokers a broker setting applies to.
func (c *Changer) targets(set spec.ConfigSetting) []int32 {
	if set.Broker == spec.AllBrokers {
		return c.brokers
	}
	return []int32{set.Broker}
}

// wanted resolves a scenario's settings into values per resource; a
// setting for one broker wins over the same setting for every broker.
func (c *Changer) wanted(settings []spec.ConfigSetting, topic string) map[resource]map[string]string {
	out := map[resource]map[string]string{}
	put := func(r resource, name, value string) {
		if out[r] == nil {
			out[r] = map[string]string{}
		}
		out[r][name] = value
	}
	for _, one := range []bool{false, true} {
		for _, set := range settings {
			switch {
			case set.Topic && !one:
				put(resource{topic: topic}, set.Name, set.Value)
			case !set.Topic && (set.Broker != spec.AllBrokers) == one:
				for _, id := range c.targets(set) {
					put(resource{broker: id}, set.Name, set.Value)
				}
			}
		}
	}
	return out
}

// Apply sets a scenario's settings and waits until every broker shows them.
// What it changes is recorded before it is changed, so Restore puts back
// even a half-applied scenario.
//
// Static settings come first, a broker restart at a time; they stay until
// RestoreAll (the next scenario restarts only the brokers whose settings
// differ), while the dynamic ones are put back by Restore after each
// scenario.
func (c *Changer) Apply(ctx context.Context, settings []spec.ConfigSetting, topic string) error {
	static, dynamic := c.splitStatic(settings)
	if len(static) > 0 || len(c.restart.originals) > 0 {
		if err := c.applyStatic(ctx, c.staticTargets(static)); err != nil {
			return err
		}
	}
	// Not cut short by SIGINT: a request cancelled on the way may still
	// land after the restore read the value it would step back from.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), configTimeout)
	defer cancel()
	want := c.wanted(dynamic, topic)
	var moves []move
	for _, res := range sortedResources(want) {
		vals := want[res]
		names := sortedKeys(vals)
		cur, err := c.describeSettled(ctx, res, names)
		if err != nil {
			return fmt.Errorf("describing %s: %w", res, err)
		}
		for _, name := range names {
			st, ok := cur[name]
			if !ok {
				return fmt.Errorf("%s has no configuration %q", res, name)
			}
			ch := change{res: res, name: name, value: vals[name], original: st.value}
			if st.source == ownSource(res) {
				ch.restore = st.value
			}
			c.pending = append(c.pending, ch)
			moves = append(moves, move{res: res, name: name, set: &ch.value, shows: &ch.value})
			c.logger.Info("changing configuration", "resource", res.String(), "key", name, "old", redact.Value(name, deref(st.value)), "new", redact.Value(name, vals[name]))
		}
	}
	return c.reach(ctx, moves)
}

// RestoreAll puts back every change, the static settings too, by
// restarting the brokers that do not show their originals, one at a time.
func (c *Changer) RestoreAll() error {
	return errors.Join(c.Restore(), c.restoreStatic())
}

// Restore puts back every pending dynamic change and waits until every
// broker shows the original values. What it cannot put back is returned
// with the commands that would.
func (c *Changer) Restore() error {
	if len(c.pending) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), configTimeout)
	defer cancel()
	pending := c.pending
	c.pending = nil
	moves := make([]move, len(pending))
	for i, ch := range pending {
		moves[i] = move{res: ch.res, name: ch.name, set: ch.restore, shows: ch.original}
	}
	if err := c.reach(ctx, moves); err != nil {
		undo := make([]string, len(pending))
		for i, ch := range pending {
			undo[i] = "  " + c.undoCommand(ch)
		}
		return fmt.Errorf("restoring the original configurations failed (%w); put them back with:\n%s", err, strings.Join(undo, "\n"))
	}
	for _, ch := range pending {
		c.logger.Info("configuration restored", "resource", ch.res.String(), "key", ch.name, "value", redact.Value(ch.name, deref(ch.original)))
	}
	return nil
}

// ownSource is the source of a value set on the resource itself.
func ownSource(res resource) kmsg.ConfigSource {
	if res.topic != "" {
		return kmsg.ConfigSourceDynamicTopicConfig
	}
	return kmsg.ConfigSourceDynamicBrokerConfig
}

func sortedResources(m map[resource]map[string]string) []resource {
	out := make([]resource, 0, len(m))
	for r := range m {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b resource) int {
		if a.topic != b.topic {
			return strings.Compare(a.topic, b.topic)
		}
		return int(a.broker - b.broker)
	})
	return out
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func withMessage(err error, msg string) error {
	if msg != "" && msg != "null" {
		return fmt.Errorf("%w: %s", err, msg)
	}
	return err
}

func deref(s *string) string {
	if s == nil {
		return "null"
	}
	return *s
}

func joinIDs(ids []int32) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.Itoa(int(id))
	}
	return strings.Join(s, ", ")
}

// shellQuote quotes s for a POSIX shell when it needs quoting.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-=:,/", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
