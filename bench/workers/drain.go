package workers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/bench/result"
	"github.com/kafka-bench/kafka_bench_exporter/bench/run"
	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/probes"
)

// The workers' consumers share one group, so each reads a part of every
// worker's records and none can tell from its own records when the sweep's
// are all read. Each worker therefore announces on the results topic when
// its producer is done (a "produced" marker); once every worker's marker is
// there, the topic no longer grows, and the sweep is read when the group
// has committed the end of every partition.

// checkEvery spaces the drain's admin requests; it only bounds how late the
// end is noticed.
const checkEvery = 250 * time.Millisecond

// sweepRunID is the run id of worker i's producer in the seq-th run: every
// worker derives all of them from the sweep's name, so each consumer knows
// which records are the sweep's without a coordinator.
func (w *Worker) sweepRunID(seq, i int) uint64 {
	h := fnv.New64a()
	_, _ = fmt.Fprintf(h, "%s/%d/%d", w.SweepName, seq, i) // a hash.Hash never returns an error
	if id := h.Sum64(); id != 0 {
		return id
	}
	return 1
}

// ProbeRuns sets the seq-th run's run ids on the probe's bench options: its own
// and the other workers'. Every worker derives them from --run.
func (ws *workerSweep) ProbeRuns(o *probes.BenchOptions, seq int) {
	o.RunID = ws.sweepRunID(seq, ws.Index)
	for i := range ws.Workers {
		if i != ws.Index {
			o.WorkerRuns = append(o.WorkerRuns, ws.sweepRunID(seq, i))
		}
	}
}

// markerKey keys the markers apart from the results (collect reads only
// the key that is the sweep's name).
func (w *Worker) markerKey() string { return w.SweepName + "/produced" }

// groupDrain is the drain of one worker of several: it publishes its
// marker, then reports done once every worker's marker is in and the group
// committed every partition's end.
type groupDrain struct {
	ws           *workerSweep
	seq          int
	topic, group string
	readers      *kgo.Client // reads the announcements
	markers      map[int]bool
	last         time.Time
	progress     int64 // markers + committed offsets: what a stall watches, group-wide
	committed    int64 // the group's committed offsets, summed over partitions
	end          int64 // the partitions' end offsets, summed
	done         bool
}

// Drain is the seq-th run's drain of the shared group; nil without a
// consumer.
func (ws *workerSweep) Drain(seq int, p config.Probe) run.GroupDrain {
	if !p.Consumer.Enabled {
		return nil // an untyped nil: no drain
	}
	return &groupDrain{ws: ws, seq: seq, topic: p.Topic, group: p.Consumer.GroupID, markers: map[int]bool{}}
}

// Announce publishes that this worker's producer is done with acked
// records acknowledged.
func (s *groupDrain) Announce(ctx context.Context, acked int64) error {
	m := result.Marker{Worker: s.ws.Index, Seq: s.seq, Acked: acked, SweepStart: s.ws.StartAt}
	if err := s.ws.send(ctx, s.ws.markerKey(), m, "the producer's end"); err != nil {
		return err
	}
	var err error
	s.readers, err = resultsReader(s.ws.creds, s.ws.kafka, s.ws.ResultsTopic)
	return err
}

// GiveUp announces that this worker's producer is done though it failed,
// so the other workers need not wait drain_timeout for it.
func (s *groupDrain) GiveUp(ctx context.Context, acked int64) {
	defer s.Close()
	if err := s.Announce(ctx, acked); err != nil {
		s.ws.logger.Warn("announcing the failed producer's end failed", "err", err)
	}
}

// Close closes the reader of the announcements.
func (s *groupDrain) Close() {
	if s.readers != nil {
		s.readers.Close()
	}
}

// Done says the run's records are all read: every marker in and every
// partition's end committed, as the last Check found.
func (s *groupDrain) Done() bool { return s.done }

// Check reads new markers and the group's committed offsets and returns
// the progress figure; Done then says whether all is read. A failed check
// is retried at the next.
func (s *groupDrain) Check(ctx context.Context) int64 {
	progress, _ := s.check(ctx)
	return progress
}

// Stalled logs the workers whose producer never announced its end and
// ends the drain without error (the merge names them missing); with every
// marker in, the group's stall is the error.
func (s *groupDrain) Stalled(stall time.Duration) error {
	if m := s.missing(); len(m) > 0 {
		s.ws.logger.Warn("workers never announced their producer's end; stopped after drain_timeout", "missing_workers", m, "drain_timeout", stall)
		return nil
	}
	return fmt.Errorf("consumer group %q: committed %d of the sweep's %d records, then no progress for %s (drain_timeout)", s.group, s.committed, s.end, stall)
}

func (s *groupDrain) check(ctx context.Context) (int64, bool) {
	if s.done || time.Since(s.last) < checkEvery {
		return s.progress, s.done
	}
	s.last = time.Now()
	pollCtx, cancel := context.WithTimeout(ctx, 10*time.Millisecond) // only what has arrived
	fetches := s.readers.PollFetches(pollCtx)
	cancel()
	ctx, cancel = context.WithTimeout(ctx, run.TopicTimeout)
	defer cancel()
	fetches.EachRecord(s.take)
	committed, err := s.ws.adm.FetchOffsets(ctx, s.group)
	if err != nil && !errors.Is(err, kerr.GroupIDNotFound) {
		return s.progress, false
	}
	ends, err := s.ws.adm.ListEndOffsets(ctx, s.topic)
	if err != nil {
		return s.progress, false
	}
	s.committed, s.end = 0, 0
	read := len(s.markers) == s.ws.Workers
	for part, end := range ends[s.topic] {
		s.end += end.Offset
		c, ok := committed.Lookup(s.topic, part)
		ok = ok && c.Err == nil && c.At >= 0
		if ok {
			s.committed += c.At
		}
		if end.Err != nil || (end.Offset > 0 && (!ok || c.At < end.Offset)) {
			read = false
		}
	}
	s.progress = int64(len(s.markers)) + s.committed
	s.done = read
	return s.progress, read
}

// take notes a worker's marker of this sweep's seq-th run. One of an
// earlier sweep of the same --run must not end this one's drain: it is
// ignored, and said so.
func (s *groupDrain) take(r *kgo.Record) {
	var m result.Marker
	if string(r.Key) != s.ws.markerKey() || json.Unmarshal(r.Value, &m) != nil || m.Seq != s.seq {
		return
	}
	if at := sweepStartOf(m.SweepStart, r); !ofSweep(at, s.ws.StartAt, !m.SweepStart.IsZero()) {
		s.ws.logger.Info("ignoring a producer's end marker of an earlier sweep of the same --run",
			"marker_worker", m.Worker, "seq", m.Seq, "marker_sweep_start", at.UTC().Format(time.RFC3339), "offset", r.Offset)
		return
	}
	s.markers[m.Worker] = true
}

// missing names the workers whose marker has not come.
func (s *groupDrain) missing() []string {
	var out []string
	for i := range s.ws.Workers {
		if !s.markers[i] {
			out = append(out, strconv.Itoa(i))
		}
	}
	return out
}
