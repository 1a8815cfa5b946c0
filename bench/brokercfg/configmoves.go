package brokercfg

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-bench/kafka_bench_exporter/redact"
)

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
func (c *Changer) reach(ctx context.Context, moves []move) error {
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

func (c *Changer) reachOnce(ctx context.Context, moves []move) error {
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
func (c *Changer) alterAll(ctx context.Context, moves []move) error {
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
func (c *Changer) describeSettled(ctx context.Context, res resource, names []string) (map[string]configState, error) {
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
func (c *Changer) await(ctx context.Context, moves []move) error {
	for {
		err := c.shows(ctx, moves)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for the brokers to show the configuration: %w (last: %w)", ctx.Err(), err)
		case <-time.After(configPoll):
		}
	}
}

// shows checks once that every broker shows every move's value.
func (c *Changer) shows(ctx context.Context, moves []move) error {
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
func (c *Changer) via(res resource) int32 {
	if res.topic != "" {
		return c.brokers[0]
	}
	return res.broker
}

// describe sends DescribeConfigs for names of res to one broker.
func (c *Changer) describe(ctx context.Context, broker int32, res resource, names []string) (map[string]configState, error) {
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
		st := configState{value: e.Value, source: e.Source, readOnly: e.ReadOnly, sensitive: e.IsSensitive || redact.SensitiveKey(e.Name)}
		if e.IsSensitive {
			st.value = nil // Kafka sends none; one sent anyway is not kept
		}
		out[e.Name] = st
	}
	return out, nil
}

// alter sends IncrementalAlterConfigs for one resource.
func (c *Changer) alter(ctx context.Context, res resource, ops []kadm.AlterConfig) error {
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
func (c *Changer) undoCommand(ch change) string {
	entity := "--entity-type brokers --entity-name " + strconv.Itoa(int(ch.res.broker))
	if ch.res.topic != "" {
		entity = "--entity-type topics --entity-name " + shellQuote(ch.res.topic)
	}
	op := "--delete-config " + ch.name
	if ch.restore != nil {
		v := redact.Value(ch.name, *ch.restore) // a secret is the user's to fill in
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
