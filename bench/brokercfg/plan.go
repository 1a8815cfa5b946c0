package brokercfg

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/kafka-bench/kafka_bench_exporter/bench/lines"
	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/redact"
)

// WritePlan prints, per scenario, each configuration it sets, its current
// value and how it is put back; c is nil when no scenario sets any.
func WritePlan(ctx context.Context, w io.Writer, c *Changer, scenarios []spec.Scenario) error {
	lw := lines.New(w)
	static := map[int32]map[string]bool{} // the static settings the sweep changes, per broker
	for _, s := range scenarios {
		lw.Printf("scenario %q:", s.DisplayName())
		if len(s.Configs) == 0 {
			lw.Printf(" no configuration changes\n")
			continue
		}
		lw.Printf("\n")
		st, dynamic := c.splitStatic(s.Configs)
		if err := c.planRestarts(ctx, lw, c.wanted(st, ""), static); err != nil {
			return err
		}
		want := c.wanted(dynamic, s.Probe.Topic)
		for _, res := range sortedResources(want) {
			if err := c.planLines(ctx, lw, s, res, want[res]); err != nil {
				return err
			}
		}
		if lw.Err() != nil {
			break
		}
	}
	if err := c.planRestore(ctx, lw, static); err != nil {
		return err
	}
	if lw.Err() != nil {
		return fmt.Errorf("writing the plan: %w", lw.Err())
	}
	return nil
}

// planLines prints one resource's changes in a scenario.
func (c *Changer) planLines(ctx context.Context, lw *lines.Writer, s spec.Scenario, res resource, vals map[string]string) error {
	names := sortedKeys(vals)
	if res.topic != "" {
		topic := res.topic
		if s.OwnTopic {
			topic += "-<sweep id>" // created for the run, so nothing to read yet
		}
		for _, n := range names {
			lw.Printf("  topic %s: set %s = %s; restored afterwards\n", topic, n, redact.Value(n, vals[n]))
		}
		return nil
	}
	cur, err := c.describe(ctx, res.broker, res, names)
	if err != nil {
		return fmt.Errorf("describing %s: %w", res, err)
	}
	for _, n := range names {
		st := cur[n]
		how := "deleting the broker's own value"
		if st.source == ownSource(res) {
			how = "setting " + redact.Value(n, deref(st.value)) + " again"
		}
		via := ""
		if path := steps(n, st.value, new(vals[n])); len(path) > 0 {
			via = ", via " + strings.Join(path, ", ") // Kafka resizes a thread pool by half or double at most
		}
		lw.Printf("  %s: set %s = %s (now %s, from %s%s); restored by %s\n", res, n, redact.Value(n, vals[n]), redact.Value(n, deref(st.value)), st.source, via, how)
	}
	return nil
}

// planRestarts prints a scenario's static settings: the brokers restarted
// one at a time, each with its command and what it changes. A broker
// already showing the values is not restarted when the sweep runs; the plan
// cannot know the order's earlier scenarios, so it shows every one.
func (c *Changer) planRestarts(ctx context.Context, lw *lines.Writer, want map[resource]map[string]string, static map[int32]map[string]bool) error {
	for _, res := range sortedResources(want) {
		names := sortedKeys(want[res])
		cur, err := c.describe(ctx, res.broker, res, names)
		if err != nil {
			return fmt.Errorf("describing %s: %w", res, err)
		}
		var sets []string
		for _, n := range names {
			if static[res.broker] == nil {
				static[res.broker] = map[string]bool{}
			}
			static[res.broker][n] = true
			st := cur[n]
			sets = append(sets, fmt.Sprintf("%s = %s (now %s, from %s)", n, redact.Value(n, want[res][n]), redact.Value(n, deref(st.value)), st.source))
		}
		cmd, err := c.restartCommand(res.broker)
		if err != nil {
			return err
		}
		lw.Printf("  %s: restart (static) with %s; by: %s\n", res, strings.Join(sets, ", "), cmd)
	}
	return nil
}

// planRestore prints how the static settings are put back after the sweep.
func (c *Changer) planRestore(ctx context.Context, lw *lines.Writer, static map[int32]map[string]bool) error {
	if len(static) == 0 {
		return nil
	}
	lw.Printf("restarts: one broker at a time, each back (registered, no under-replicated partition, controller quorum caught up")
	if c.restart.hook.PreferredLeaders {
		lw.Printf(", preferred leaders elected")
	}
	lw.Printf(") before the next, within %s each\n", c.restart.hook.Timeout)
	lw.Printf("after the sweep (also after an error or Ctrl-C):\n")
	ids := make([]int32, 0, len(static))
	for id := range static {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		names := make([]string, 0, len(static[id]))
		for n := range static[id] {
			names = append(names, n)
		}
		slices.Sort(names)
		cur, err := c.describe(ctx, id, resource{broker: id}, names)
		if err != nil {
			return fmt.Errorf("describing broker %d: %w", id, err)
		}
		var how []string
		for _, n := range names {
			if v := originalValue(cur[n]); v.unset {
				how = append(how, n+" removed (back to "+redact.Value(n, deref(cur[n].value))+")")
			} else {
				how = append(how, n+" = "+redact.Value(n, v.value))
			}
		}
		lw.Printf("  broker %d: restored by a restart with %s\n", id, strings.Join(how, ", "))
	}
	return nil
}
