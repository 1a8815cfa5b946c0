package workers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/bench/result"
	"github.com/kafka-bench/kafka_bench_exporter/bench/run"
	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/kclient"
)

// ensureResultsTopic creates the results topic unless it exists: one
// partition, so every reader sees a sweep's results in the order published.
func ensureResultsTopic(ctx context.Context, adm *kadm.Client, topic string) error {
	ctx, cancel := context.WithTimeout(ctx, run.TopicTimeout)
	defer cancel()
	resp, err := adm.CreateTopic(ctx, 1, -1, nil, topic)
	if err == nil {
		err = resp.Err
	}
	if err != nil && !errors.Is(err, kerr.TopicAlreadyExists) {
		return fmt.Errorf("creating the results topic %q: %w", topic, err)
	}
	return nil
}

// publish writes one scenario's result to the results topic, keyed by the
// sweep's name.
func (ws *workerSweep) publish(ctx context.Context, paramKeys []string, r result.Result) error {
	return ws.send(ctx, ws.SweepName, result.JSONResults(paramKeys, []result.Result{r})[0], "the result")
}

// send writes v as JSON to the results topic under key; what names it in
// the error. It is sent even when ctx is cancelled: the merge needs it.
func (ws *workerSweep) send(ctx context.Context, key string, v any, what string) error {
	value, err := json.Marshal(v)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), run.TopicTimeout)
	defer cancel()
	rec := &kgo.Record{Topic: ws.ResultsTopic, Key: []byte(key), Value: value}
	if err := ws.cl.ProduceSync(ctx, rec).FirstErr(); err != nil {
		return fmt.Errorf("publishing %s to %q: %w", what, ws.ResultsTopic, err)
	}
	return nil
}

// collected is what the workers of one sweep have published: by worker
// index, then by the run's place in the worker's schedule (a later copy,
// from a restarted worker, replaces an earlier one).
type collected struct {
	byWorker map[int]map[int]result.JSONResult
	// bad are records of the sweep that could not be read.
	bad []error
	// name and start identify the sweep: a sweep that reuses --run is told
	// apart by its start. With start zero (a merge given --run alone) the
	// newest start read wins: sweep holds it.
	name         string
	start, sweep time.Time
	// stale names each result of another sweep of the same name, ignored.
	stale []string
}

func newCollected(name string, start time.Time) *collected {
	return &collected{byWorker: map[int]map[int]result.JSONResult{}, name: name, start: start, sweep: start}
}

// sweepStartOf is the sweep start a record of the results topic belongs
// to: the one it carries, or (written without one) the time it was
// published at, which is after its own sweep's start.
func sweepStartOf(carried time.Time, rec *kgo.Record) time.Time {
	if !carried.IsZero() {
		return carried
	}
	return rec.Timestamp
}

// ofSweep reports whether a record of the results topic that belongs to
// the sweep started at (sweepStartOf) is of the sweep started at start.
func ofSweep(at, start time.Time, carried bool) bool {
	if carried {
		return at.Equal(start)
	}
	return !at.Before(start)
}

// take adds one record of the results topic when it is a result of the
// sweep; one of an earlier sweep of the same name is ignored and named in
// stale.
func (c *collected) take(topic string, rec *kgo.Record) {
	if string(rec.Key) != c.name {
		return
	}
	var jr result.JSONResult
	if err := json.Unmarshal(rec.Value, &jr); err != nil {
		c.bad = append(c.bad, fmt.Errorf("%s offset %d: not a worker result: %w", topic, rec.Offset, err))
		return
	}
	if jr.Worker == nil {
		c.bad = append(c.bad, fmt.Errorf("%s offset %d: not a worker result: no \"worker\" section", topic, rec.Offset))
		return
	}
	w := jr.Worker
	at, carried := sweepStartOf(w.SweepStart, rec), !w.SweepStart.IsZero()
	note := func(jr result.JSONResult, at time.Time, where string) {
		c.stale = append(c.stale, fmt.Sprintf("%s: worker %d's result of scenario %q is of the sweep %q started %s, not of the one started %s: ignored",
			where, jr.Worker.Index, jr.Scenario, c.name, at.UTC().Format(time.RFC3339), c.sweep.UTC().Format(time.RFC3339)))
	}
	where := fmt.Sprintf("%s offset %d", topic, rec.Offset)
	switch {
	case !c.start.IsZero():
		if !ofSweep(at, c.start, carried) {
			note(jr, at, where)
			return
		}
	case carried && at.After(c.sweep):
		// A newer sweep of the name: what was collected so far is stale.
		old := c.sweep
		c.sweep = at
		c.each(func(o result.JSONResult) { note(o, old, topic) })
		c.byWorker = map[int]map[int]result.JSONResult{}
	case carried && at.Before(c.sweep):
		note(jr, at, where)
		return
	}
	c.add(jr)
}

func (c *collected) add(jr result.JSONResult) {
	w := jr.Worker
	if c.byWorker[w.Index] == nil {
		c.byWorker[w.Index] = map[int]result.JSONResult{}
	}
	c.byWorker[w.Index][w.Seq] = jr
}

// resultsReader is a client reading the results topic from its start.
func resultsReader(creds *kclient.CredentialPool, k config.Cluster, topic string) (*kgo.Client, error) {
	return kclient.New(k, kclient.Options{Credentials: creds}, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
}

// collect reads the results of the sweep named name from the start of the results topic until
// done holds or ctx ends (then it returns what it has with ctx's error).
// A result of an earlier sweep that reused the name is ignored and named in
// stale: start is the sweep's start, or zero for the newest one read.
func collect(ctx context.Context, creds *kclient.CredentialPool, k config.Cluster, topic, name string, start time.Time, done func(*collected) bool) (*collected, error) {
	c := newCollected(name, start)
	cl, err := resultsReader(creds, k, topic)
	if err != nil {
		return c, err
	}
	defer cl.Close()
	for !done(c) {
		fetches := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			return c, ctx.Err()
		}
		fetches.EachError(func(_ string, _ int32, err error) {
			if !errors.Is(err, kerr.UnknownTopicOrPartition) { // not created yet
				c.bad = append(c.bad, err)
			}
		})
		fetches.EachRecord(func(rec *kgo.Record) { c.take(topic, rec) })
	}
	return c, nil
}
