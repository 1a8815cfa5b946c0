package run

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/bench/brokercfg"
	"github.com/kafka-bench/kafka_bench_exporter/bench/lines"
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
	lw := lines.New(w)
	lw.Printf("plan: %d scenarios × %d rounds = %d runs", len(b.Scenarios), b.Rounds, len(runs))
	if b.Rounds > 1 {
		lw.Printf(", order shuffled with --seed=%d", r.Seed)
	}
	lw.Printf("\n")
	for round := 1; round <= b.Rounds; round++ {
		var names []string
		for _, run := range runs {
			if run.round == round {
				names = append(names, b.Scenarios[run.scenario].DisplayName())
			}
		}
		lw.Printf("round %d: %s\n", round, strings.Join(names, ", "))
	}
	if lw.Err() != nil {
		return fmt.Errorf("writing the plan: %w", lw.Err())
	}
	var cc *brokercfg.Changer
	if brokercfg.HasSettings(b) {
		cl, err := NewAdminClient(b.Kafka, nil) // the plan's one client
		if err != nil {
			return err
		}
		defer cl.Close()
		if cc, err = brokercfg.New(ctx, cl, b.Kafka.Kafka, r.Logger); err != nil {
			return err
		}
		if err := cc.Check(ctx, b); err != nil {
			return err
		}
	}
	return brokercfg.WritePlan(ctx, w, cc, b.Scenarios)
}

// NewAdminClient connects as the probes do (TLS, SASL), with the
// credentials of creds.
func NewAdminClient(k config.Cluster, creds *kclient.CredentialPool) (*kgo.Client, error) {
	cl, err := kclient.New(k, kclient.Options{Credentials: creds})
	if err != nil {
		return nil, fmt.Errorf("admin client: %w", err)
	}
	return cl, nil
}
