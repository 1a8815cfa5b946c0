package workers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/kafka-bench/kafka_bench_exporter/bench/result"
	"github.com/kafka-bench/kafka_bench_exporter/bench/run"
	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/kclient"
)

// Sweep is what the workers of one sweep published, ready to merge.
type Sweep struct {
	c *collected
}

// CollectSweep reads the results of the sweep named name from the results topic until all
// workers have published every scenario, or ctx ends: then the sweep holds
// what arrived and the merge names the rest missing. start is the sweep's
// --start-at, or zero for the newest sweep of that name: results of another
// sweep that reused the name are ignored and named in Problems.
func CollectSweep(ctx context.Context, k config.Cluster, topic, name string, start time.Time, workers int) (*Sweep, error) {
	creds := kclient.NewCredentialPool(nil, nil) // the admin's and the reader's
	adm, err := run.NewAdminClient(k, creds)
	if err != nil {
		return nil, err
	}
	err = ensureResultsTopic(ctx, kadm.NewClient(adm), topic)
	adm.Close()
	if err != nil {
		return nil, err
	}
	c, err := collect(ctx, creds, k, topic, name, start, func(c *collected) bool { return c.complete(workers) })
	if err != nil && ctx.Err() == nil {
		return nil, err
	}
	return &Sweep{c: c}, nil
}

// ReadSweepFiles reads the JSON results of workers (bench --format json).
func ReadSweepFiles(paths []string) (*Sweep, error) {
	c := &collected{byWorker: map[int]map[int]result.JSONResult{}}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		var results []result.JSONResult
		if err := json.Unmarshal(data, &results); err != nil {
			return nil, fmt.Errorf("%s: not a bench JSON result: %w", path, err)
		}
		for i, jr := range results {
			if jr.Worker == nil {
				return nil, fmt.Errorf("%s: result %d (%s) is not a worker's: run each worker with --workers", path, i+1, jr.Scenario)
			}
			c.add(jr)
		}
	}
	return &Sweep{c: c}, nil
}

// Workers is the number of workers the results say the sweep had (0 when
// there are none).
func (s *Sweep) Workers() int {
	n := 0
	s.c.each(func(jr result.JSONResult) { n = max(n, jr.Worker.Workers) })
	return n
}

// Problems are the published records that could not be read, and those of
// an earlier sweep that reused the sweep's name.
func (s *Sweep) Problems() []error {
	out := slices.Clone(s.c.bad)
	for _, st := range s.c.stale {
		out = append(out, errors.New(st))
	}
	return out
}

func (c *collected) each(f func(result.JSONResult)) {
	for _, w := range c.byWorker {
		for _, jr := range w {
			f(jr)
		}
	}
}

// runs is the number of runs in each worker's schedule.
func (c *collected) runs() int {
	n := 0
	c.each(func(jr result.JSONResult) { n = max(n, jr.Worker.Runs) })
	return n
}

// complete reports whether every worker has published every run.
func (c *collected) complete(workers int) bool {
	runs := c.runs()
	if runs == 0 {
		return false
	}
	for i := range workers {
		if len(c.byWorker[i]) < runs {
			return false
		}
	}
	return true
}

// Merged is a sweep merged into one result per scenario, shaped as the
// result of a sweep by one process.
type Merged struct {
	ParamKeys []string
	Results   []result.Result
	// Missing names each worker with no result of some scenario; a merge
	// with any is incomplete.
	Missing []string
	// Notes name each worker that started a scenario after its common
	// start, and scenarios whose workers' measured windows began apart
	// (warm-up): the merged rate counts the windows' union.
	Notes []string
}

// Merge merges the sweep of workers workers: per scenario, counts add up,
// latency histograms merge bucket by bucket, throughput is over the common
// window (earliest start to latest end). A worker's failure fails the
// scenario; a worker without a result fails it too and is named.
func (s *Sweep) Merge(workers int) (*Merged, error) {
	runs := s.c.runs()
	if runs == 0 {
		return nil, fmt.Errorf("no worker published a result")
	}
	m := &Merged{}
	for seq := range runs {
		var parts []result.Result
		var missing []int
		for i := range workers {
			jr, ok := s.c.byWorker[i][seq]
			if !ok {
				missing = append(missing, i)
				continue
			}
			if m.ParamKeys == nil {
				m.ParamKeys = jr.Worker.ParamKeys
			}
			r, err := result.FromJSON(jr, jr.Worker.ParamKeys)
			if err != nil {
				return nil, fmt.Errorf("worker %d, scenario %s: %w", i, spec.DisplayName(jr.Scenario), err)
			}
			parts = append(parts, r)
		}
		r, err := mergeRun(parts, missing, seq)
		if err != nil {
			return nil, err
		}
		for _, i := range missing {
			m.Missing = append(m.Missing, fmt.Sprintf("worker %d: no result of scenario %s", i, r.Name()))
		}
		for _, p := range parts {
			if p.Worker.Late() {
				m.Notes = append(m.Notes, fmt.Sprintf("worker %d started scenario %s %s late: its window is not the others'",
					p.Worker.Index, r.Name(), p.Worker.LateBy.Round(time.Millisecond)))
			}
		}
		if d := firstSpread(parts); d > result.LateTolerance {
			m.Notes = append(m.Notes, fmt.Sprintf("scenario %s: the workers' measured windows began up to %s apart; the merged rate is over their union",
				r.Name(), d.Round(time.Millisecond)))
		}
		m.Results = append(m.Results, r)
	}
	return m, nil
}

// mergeRun merges the workers' results of one run.
func mergeRun(parts []result.Result, missing []int, seq int) (result.Result, error) {
	if len(parts) == 0 {
		return result.Result{Scenario: "run " + strconv.Itoa(seq+1), Err: fmt.Sprintf("no worker published a result (workers %v missing)", missing)}, nil
	}
	first := parts[0]
	r := result.Result{Scenario: first.Scenario, Params: first.Params, Topic: first.Topic, Round: first.Round}
	var errs []string
	for _, p := range parts {
		if p.Scenario != first.Scenario {
			return r, fmt.Errorf("run %d: worker %d ran scenario %s, worker %d %s: the workers ran different bench files",
				seq+1, first.Worker.Index, first.Name(), p.Worker.Index, p.Name())
		}
		if p.Failed() {
			errs = append(errs, fmt.Sprintf("worker %d: %s", p.Worker.Index, p.Err))
		}
	}
	for _, i := range missing {
		errs = append(errs, fmt.Sprintf("worker %d missing: no result", i))
	}
	var err error
	if r.Produce, err = mergeProduce(parts); err != nil {
		return r, err
	}
	if r.Consume, err = mergeConsume(parts); err != nil {
		return r, err
	}
	if c := r.Consume; c != nil && c.Lost > 0 {
		errs = append(errs, fmt.Sprintf("%d acknowledged records read by no worker's consumer", c.Lost))
	}
	r.Err = strings.Join(errs, "; ")
	r.Host, r.Hosts = mergeHosts(parts)
	return r, nil
}

func mergeProduce(parts []result.Result) (*result.ProduceResult, error) {
	var out *result.ProduceResult
	var lats []result.Latencies
	for _, p := range parts {
		pr := p.Produce
		if pr == nil {
			continue
		}
		if out == nil {
			out = &result.ProduceResult{First: pr.First, Last: pr.Last}
		}
		out.Records += pr.Records
		out.Bytes += pr.Bytes
		out.Failed += pr.Failed
		out.NotCommitted += pr.NotCommitted
		out.First, out.Last = earliest(out.First, pr.First), latest(out.Last, pr.Last)
		lats = append(lats, pr.Latency)
	}
	if out == nil {
		return nil, nil
	}
	out.Elapsed = out.Last.Sub(out.First)
	var err error
	out.Latency, err = result.MergeLatencies(lats)
	return out, err
}

func mergeConsume(parts []result.Result) (*result.ConsumeResult, error) {
	var out *result.ConsumeResult
	var lats []result.Latencies
	var accts []*result.Accounting
	for _, p := range parts {
		if p.Accounting != nil {
			accts = append(accts, p.Accounting)
		}
		c := p.Consume
		if c == nil {
			continue
		}
		if out == nil {
			out = &result.ConsumeResult{Start: c.Start, End: c.End}
		}
		out.Records += c.Records
		out.Bytes += c.Bytes
		out.Start, out.End = earliest(out.Start, c.Start), latest(out.End, c.End)
		out.Rebalance = max(out.Rebalance, c.Rebalance)
		// Each worker's members see the group's rebalances: the slowest
		// worker's p99 is the group's, as for the first join.
		out.Rebalances = max(out.Rebalances, c.Rebalances)
		out.RebalanceP99 = max(out.RebalanceP99, c.RebalanceP99)
		out.Lost += c.Lost
		out.Duplicates += c.Duplicates
		if c.EndToEnd != nil {
			lats = append(lats, *c.EndToEnd)
		}
	}
	if out != nil && len(accts) == len(parts) {
		// Each consumer read a part of every worker's records: loss and
		// duplicates are only known over all of them.
		out.Lost, out.Duplicates = result.Tally(accts)
	}
	if out == nil || len(lats) == 0 {
		return out, nil
	}
	e2e, err := result.MergeLatencies(lats)
	out.EndToEnd = &e2e
	return out, err
}

// mergeHosts: the load generator columns show the busiest worker's CPU and
// memory and the workers' summed network; the host rows list each worker's
// own machine, then the bench file's machines as worker 0 (or the first
// worker with a result) measured them.
func mergeHosts(parts []result.Result) (result.HostStats, []result.HostRow) {
	st := result.HostStats{Unavailable: true}
	var rows, others []result.HostRow
	for _, p := range parts {
		if h := p.Host; !h.Unavailable {
			if st.Unavailable {
				st = result.HostStats{}
			}
			st.CPUPercent = max(st.CPUPercent, h.CPUPercent)
			st.MemPercent = max(st.MemPercent, h.MemPercent)
			st.NetInMBps += h.NetInMBps
			st.NetOutMBps += h.NetOutMBps
		}
		if len(p.Hosts) == 0 {
			continue
		}
		own := p.Hosts[0]
		own.Name = fmt.Sprintf("%s (worker %d)", own.Name, p.Worker.Index)
		rows = append(rows, own)
		if others == nil {
			others = slices.Clone(p.Hosts[1:])
		}
	}
	return st, append(rows, others...)
}

// firstSpread is how far apart the workers' first measured sends are.
func firstSpread(parts []result.Result) time.Duration {
	var lo, hi time.Time
	for _, p := range parts {
		if p.Produce != nil && !p.Produce.First.IsZero() {
			lo, hi = earliest(lo, p.Produce.First), latest(hi, p.Produce.First)
		}
	}
	return hi.Sub(lo)
}

func earliest(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}

func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
