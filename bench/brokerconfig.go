package bench

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
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-bench/kafka_bench_exporter/config"
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

// configState is one configuration as a broker describes it.
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

// configChanger applies scenarios' broker and topic settings with
// IncrementalAlterConfigs, waits until DescribeConfigs shows them on every
// broker, and restores the original values.
type configChanger struct {
	cl      *kgo.Client
	adm     *kadm.Client
	kafka   config.Kafka
	logger  *slog.Logger
	brokers []int32
	pending []change // applied (or being applied) and not yet restored
}

// hasSettings tells whether any scenario changes the cluster.
func hasSettings(b *Bench) bool {
	for _, s := range b.Scenarios {
		if len(s.Configs) > 0 {
			return true
		}
	}
	return false
}

func newConfigChanger(ctx context.Context, cl *kgo.Client, kafka config.Kafka, logger *slog.Logger) (*configChanger, error) {
	c := &configChanger{cl: cl, adm: kadm.NewClient(cl), kafka: kafka, logger: logger}
	bds, err := c.adm.ListBrokers(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing brokers: %w", err)
	}
	c.brokers = bds.NodeIDs()
	slices.Sort(c.brokers)
	return c, nil
}

// check refuses, before anything is changed, the broker settings the bench
// cannot apply and put back: an unknown broker or configuration, a static
// (read-only) one, and a sensitive one (its value cannot be read back).
func (c *configChanger) check(ctx context.Context, b *Bench) error {
	names := map[int32][]string{}
	for _, s := range b.Scenarios {
		for _, set := range s.Configs {
			if set.Topic {
				continue
			}
			if set.Broker != allBrokers && !slices.Contains(c.brokers, set.Broker) {
				return &RefusedError{fieldError(scenarioScope(s), set.Key, set.Value, fmt.Sprintf("no broker %d in the cluster (brokers: %s)", set.Broker, joinIDs(c.brokers)))}
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
				case st.readOnly:
					problem = "static (read-only) broker configuration: it changes only in server.properties and with a restart; the bench changes dynamic configurations only"
				case st.sensitive:
					problem = "sensitive broker configuration: Kafka does not return its value, so the bench could not restore it"
				default:
					continue
				}
				return &RefusedError{fieldError(scenarioScope(s), set.Key, set.Value, problem)}
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

func scenarioScope(s Scenario) string { return fmt.Sprintf("scenario %q", s.DisplayName()) }

// targets are the brokers a broker setting applies to.
func (c *configChanger) targets(set ConfigSetting) []int32 {
	if set.Broker == allBrokers {
		return c.brokers
	}
	return []int32{set.Broker}
}

// wanted resolves a scenario's settings into values per resource; a
// setting for one broker wins over the same setting for every broker.
func (c *configChanger) wanted(settings []ConfigSetting, topic string) map[resource]map[string]string {
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
			case !set.Topic && (set.Broker != allBrokers) == one:
				for _, id := range c.targets(set) {
					put(resource{broker: id}, set.Name, set.Value)
				}
			}
		}
	}
	return out
}

// apply sets a scenario's settings and waits until every broker shows them.
// What it changes is recorded before it is changed, so restore puts back
// even a half-applied scenario.
func (c *configChanger) apply(ctx context.Context, settings []ConfigSetting, topic string) error {
	// Not cut short by SIGINT: a request cancelled on the way may still
	// land after the restore read the value it would step back from.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), configTimeout)
	defer cancel()
	want := c.wanted(settings, topic)
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
			c.logger.Info("changing configuration", "resource", res.String(), "key", name, "old", deref(st.value), "new", vals[name])
		}
	}
	return c.reach(ctx, moves)
}

// restore puts back every pending change and waits until every broker shows
// the original values. What it cannot put back is returned with the
// commands that would.
func (c *configChanger) restore() error {
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
		return fmt.Errorf("restoring the original configurations failed (%v); put them back with:\n%s", err, strings.Join(undo, "\n"))
	}
	for _, ch := range pending {
		c.logger.Info("configuration restored", "resource", ch.res.String(), "key", ch.name, "value", deref(ch.original))
	}
	return nil
}

// move takes one configuration to a value: set it (nil: delete the
// resource's own value), after which every broker must show shows.
type move struct {
	res   resource
	name  string
	set   *string
	shows *string
}

// threadPools are the broker settings Kafka resizes a thread pool for; it
// refuses a new size below half or above double the current one
// (DynamicThreadPool), so the bench gets there in steps.
var threadPools = map[string]bool{"num.io.threads": true, "num.network.threads": true, "num.replica.fetchers": true,
	"num.recovery.threads.per.data.dir": true, "background.threads": true}

// steps are the sizes between from and to (both excluded) that a thread
// pool passes through, halving or doubling; none for any other setting.
func steps(name string, from, to *string) []string {
	if !threadPools[name] || from == nil || to == nil {
		return nil
	}
	c, err1 := strconv.Atoi(*from)
	t, err2 := strconv.Atoi(*to)
	if err1 != nil || err2 != nil || c <= 0 || t <= 0 {
		return nil
	}
	var out []string
	for {
		if t < c {
			c = max(t, c/2)
		} else {
			c = min(t, c*2)
		}
		if c == t {
			return out
		}
		out = append(out, strconv.Itoa(c))
	}
}

// reach carries out moves. Thread pools first walk to their size one
// halving or doubling at a time, each hop planned from what the broker
// shows; then every move is altered and awaited on every broker. A change
// Kafka refuses (another change landed meanwhile) is planned afresh, a few
// times.
func (c *configChanger) reach(ctx context.Context, moves []move) error {
	const attempts = 3
	for attempt := 1; ; attempt++ {
		err := c.reachOnce(ctx, moves)
		if err == nil || attempt == attempts || !(errors.Is(err, kerr.InvalidRequest) || errors.Is(err, kerr.InvalidConfig)) {
			return err
		}
		c.logger.Warn("configuration change refused; planning it again", "err", err)
		select {
		case <-ctx.Done():
			return err
		case <-time.After(configPoll):
		}
	}
}

func (c *configChanger) reachOnce(ctx context.Context, moves []move) error {
	for {
		var hops []move
		for _, m := range moves {
			if !threadPools[m.name] {
				continue
			}
			cur, err := c.describeSettled(ctx, m.res, []string{m.name})
			if err != nil {
				return fmt.Errorf("describing %s: %w", m.res, err)
			}
			if path := steps(m.name, cur[m.name].value, m.shows); len(path) > 0 {
				hops = append(hops, move{res: m.res, name: m.name, set: &path[0], shows: &path[0]})
			}
		}
		if len(hops) == 0 {
			break
		}
		if err := c.alterAll(ctx, hops); err != nil {
			return err
		}
	}
	return c.alterAll(ctx, moves)
}

// alterAll sends the moves, one IncrementalAlterConfigs per resource, and
// waits until every broker shows them.
func (c *configChanger) alterAll(ctx context.Context, moves []move) error {
	ops := map[resource][]kadm.AlterConfig{}
	for _, m := range moves {
		op := kadm.AlterConfig{Op: kadm.DeleteConfig, Name: m.name}
		if m.set != nil {
			op = kadm.AlterConfig{Op: kadm.SetConfig, Name: m.name, Value: m.set}
		}
		ops[m.res] = append(ops[m.res], op)
	}
	for res, o := range ops {
		if err := c.alter(ctx, res, o); err != nil {
			return fmt.Errorf("altering %s: %w", res, err)
		}
	}
	return c.await(ctx, moves)
}

// describeSettled describes res on the broker that answers for it, waiting
// out a topic that not every broker knows yet.
func (c *configChanger) describeSettled(ctx context.Context, res resource, names []string) (map[string]configState, error) {
	for {
		cur, err := c.describe(ctx, c.via(res), res, names)
		if !errors.Is(err, kerr.UnknownTopicOrPartition) {
			return cur, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(configPoll):
		}
	}
}

// await polls DescribeConfigs on every broker until each move shows.
func (c *configChanger) await(ctx context.Context, moves []move) error {
	for {
		err := c.shows(ctx, moves)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for the brokers to show the configuration: %w (last: %v)", ctx.Err(), err)
		case <-time.After(configPoll):
		}
	}
}

// shows checks once that every broker shows every move's value.
func (c *configChanger) shows(ctx context.Context, moves []move) error {
	type ask struct {
		broker int32
		res    resource
	}
	names := map[ask][]string{}
	var asks []ask
	for _, m := range moves {
		brokers := []int32{m.res.broker}
		if m.res.topic != "" {
			brokers = c.brokers // a topic's configuration, as each broker sees it
		}
		for _, id := range brokers {
			a := ask{id, m.res}
			if _, ok := names[a]; !ok {
				asks = append(asks, a)
			}
			if !slices.Contains(names[a], m.name) {
				names[a] = append(names[a], m.name)
			}
		}
	}
	for _, a := range asks {
		cur, err := c.describe(ctx, a.broker, a.res, names[a])
		if err != nil {
			return fmt.Errorf("broker %d describing %s: %w", a.broker, a.res, err)
		}
		for _, m := range moves {
			if m.res != a.res {
				continue
			}
			if got := cur[m.name].value; deref(got) != deref(m.shows) || (got == nil) != (m.shows == nil) {
				return fmt.Errorf("broker %d shows %s %s = %s, want %s", a.broker, a.res, m.name, deref(got), deref(m.shows))
			}
		}
	}
	return nil
}

// via is the broker that answers for a resource: a broker describes only its
// own configuration.
func (c *configChanger) via(res resource) int32 {
	if res.topic != "" {
		return c.brokers[0]
	}
	return res.broker
}

// describe sends DescribeConfigs for names of res to one broker.
func (c *configChanger) describe(ctx context.Context, broker int32, res resource, names []string) (map[string]configState, error) {
	r := kmsg.NewDescribeConfigsRequestResource()
	r.ResourceType, r.ResourceName = kmsg.ConfigResourceTypeBroker, strconv.Itoa(int(res.broker))
	if res.topic != "" {
		r.ResourceType, r.ResourceName = kmsg.ConfigResourceTypeTopic, res.topic
	}
	r.ConfigNames = names
	req := kmsg.NewPtrDescribeConfigsRequest()
	req.Resources = append(req.Resources, r)
	resp, err := req.RequestWith(ctx, c.cl.Broker(int(broker)))
	if err != nil {
		return nil, err
	}
	if len(resp.Resources) != 1 {
		return nil, fmt.Errorf("%d resources in the DescribeConfigs response, want 1", len(resp.Resources))
	}
	rr := resp.Resources[0]
	if err := kerr.ErrorForCode(rr.ErrorCode); err != nil {
		return nil, withMessage(err, deref(rr.ErrorMessage))
	}
	out := make(map[string]configState, len(rr.Configs))
	for _, e := range rr.Configs {
		out[e.Name] = configState{value: e.Value, source: e.Source, readOnly: e.ReadOnly, sensitive: e.IsSensitive}
	}
	return out, nil
}

// alter sends IncrementalAlterConfigs for one resource.
func (c *configChanger) alter(ctx context.Context, res resource, ops []kadm.AlterConfig) error {
	var resps kadm.AlterConfigsResponses
	var err error
	if res.topic != "" {
		resps, err = c.adm.AlterTopicConfigs(ctx, ops, res.topic)
	} else {
		resps, err = c.adm.AlterBrokerConfigs(ctx, ops, res.broker)
	}
	if err != nil {
		return err
	}
	for _, r := range resps {
		if r.Err != nil {
			return withMessage(r.Err, r.ErrMessage)
		}
	}
	return nil
}

// undoCommand is the kafka-configs.sh command that does what restore could
// not.
func (c *configChanger) undoCommand(ch change) string {
	entity := "--entity-type brokers --entity-name " + strconv.Itoa(int(ch.res.broker))
	if ch.res.topic != "" {
		entity = "--entity-type topics --entity-name " + shellQuote(ch.res.topic)
	}
	op := "--delete-config " + ch.name
	if ch.restore != nil {
		v := *ch.restore
		if strings.Contains(v, ",") {
			v = "[" + v + "]" // kafka-configs.sh's syntax for a list value
		}
		op = "--add-config " + shellQuote(ch.name+"="+v)
	}
	cmd := "kafka-configs.sh --bootstrap-server " + shellQuote(strings.Join(c.kafka.Brokers, ",")) + " " + entity + " --alter " + op
	if c.kafka.TLS.Enabled || c.kafka.SASL.Mechanism != "" {
		cmd += " --command-config client.properties" // the TLS / SASL settings of kafka.tls and kafka.sasl
	}
	return cmd
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
