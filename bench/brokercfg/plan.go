package brokercfg

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/redact"
)

// WritePlan prints, per scenario, each configuration it sets, its current
// value and how it is put back; c is nil when no scenario sets any.
func WritePlan(ctx context.Context, w io.Writer, c *Changer, scenarios []spec.Scenario) error {
	lw := &lineWriter{w: w}
	for _, s := range scenarios {
		lw.printf("scenario %q:", s.DisplayName())
		if len(s.Configs) == 0 {
			lw.printf(" no configuration changes\n")
			continue
		}
		lw.printf("\n")
		want := c.wanted(s.Configs, s.Probe.Topic)
		for _, res := range sortedResources(want) {
			if err := c.planLines(ctx, lw, s, res, want[res]); err != nil {
				return err
			}
		}
		if lw.err != nil {
			break
		}
	}
	if lw.err != nil {
		return fmt.Errorf("writing the plan: %w", lw.err)
	}
	return nil
}

// lineWriter keeps the first write error, so a plan cut short fails instead
// of looking complete.
type lineWriter struct {
	w   io.Writer
	err error
}

// printf writes unless an earlier write failed.
func (lw *lineWriter) printf(format string, args ...any) {
	if lw.err == nil {
		_, lw.err = fmt.Fprintf(lw.w, format, args...)
	}
}

// planLines prints one resource's changes in a scenario.
func (c *Changer) planLines(ctx context.Context, lw *lineWriter, s spec.Scenario, res resource, vals map[string]string) error {
	names := sortedKeys(vals)
	if res.topic != "" {
		topic := res.topic
		if s.OwnTopic {
			topic += "-<sweep id>" // created for the run, so nothing to read yet
		}
		for _, n := range names {
			lw.printf("  topic %s: set %s = %s; restored afterwards\n", topic, n, redact.Value(n, vals[n]))
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
		lw.printf("  %s: set %s = %s (now %s, from %s%s); restored by %s\n", res, n, redact.Value(n, vals[n]), redact.Value(n, deref(st.value)), st.source, via, how)
	}
	return nil
}
