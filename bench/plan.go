package bench

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/kclient"
)

// Plan prints what Run would do and changes nothing: the runs in order and,
// per scenario, each configuration it sets, its current value and how it is
// put back. With broker settings it reads the cluster (Metadata,
// DescribeConfigs) and refuses what Run would refuse.
func (r *Runner) Plan(ctx context.Context, b *spec.Bench, w io.Writer) error {
	runs := schedule(len(b.Scenarios), b.Rounds, r.Seed)
	fmt.Fprintf(w, "plan: %d scenarios × %d rounds = %d runs", len(b.Scenarios), b.Rounds, len(runs))
	if b.Rounds > 1 {
		fmt.Fprintf(w, ", order shuffled with --seed=%d", r.Seed)
	}
	fmt.Fprintln(w)
	for round := 1; round <= b.Rounds; round++ {
		var names []string
		for _, run := range runs {
			if run.round == round {
				names = append(names, b.Scenarios[run.scenario].DisplayName())
			}
		}
		fmt.Fprintf(w, "round %d: %s\n", round, strings.Join(names, ", "))
	}
	var cc *configChanger
	if hasSettings(b) {
		cl, err := newAdminClient(b.Kafka)
		if err != nil {
			return err
		}
		defer cl.Close()
		if cc, err = newConfigChanger(ctx, cl, b.Kafka, r.Logger); err != nil {
			return err
		}
		if err := cc.check(ctx, b); err != nil {
			return err
		}
	}
	for _, s := range b.Scenarios {
		fmt.Fprintf(w, "scenario %q:", s.DisplayName())
		if len(s.Configs) == 0 {
			fmt.Fprintln(w, " no configuration changes")
			continue
		}
		fmt.Fprintln(w)
		want := cc.wanted(s.Configs, s.Probe.Topic)
		for _, res := range sortedResources(want) {
			if err := cc.planLines(ctx, w, s, res, want[res]); err != nil {
				return err
			}
		}
	}
	return nil
}

// planLines prints one resource's changes in a scenario.
func (c *configChanger) planLines(ctx context.Context, w io.Writer, s spec.Scenario, res resource, vals map[string]string) error {
	names := sortedKeys(vals)
	if res.topic != "" {
		topic := res.topic
		if s.OwnTopic {
			topic += "-<run id>" // created for the run, so nothing to read yet
		}
		for _, n := range names {
			fmt.Fprintf(w, "  topic %s: set %s = %s; restored afterwards\n", topic, n, config.RedactValue(n, vals[n]))
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
			how = "setting " + deref(st.value) + " again"
		}
		via := ""
		if path := steps(n, st.value, kadm.StringPtr(vals[n])); len(path) > 0 {
			via = ", via " + strings.Join(path, ", ") // Kafka resizes a thread pool by half or double at most
		}
		fmt.Fprintf(w, "  %s: set %s = %s (now %s, from %s%s); restored by %s\n", res, n, config.RedactValue(n, vals[n]), config.RedactValue(n, deref(st.value)), st.source, via, how)
	}
	return nil
}

// newAdminClient connects as the probes do (TLS, SASL).
func newAdminClient(k config.Kafka) (*kgo.Client, error) {
	cl, err := kclient.New(k, kclient.Options{})
	if err != nil {
		return nil, fmt.Errorf("admin client: %w", err)
	}
	return cl, nil
}
