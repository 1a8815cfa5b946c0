package probes

import (
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
	"github.com/kafka-bench/kafka_bench_exporter/probes/tracker"
)

// runDeps is what the producer and the consumers share with their probe.
// The probe holds one; each client takes a copy when it starts: the shared
// state is one for the probe's life, and the run is the one the client was
// started in (a recreated topic starts new clients with a new run).
type runDeps struct {
	*shared
	runState
}

// shared is the state of a probe that its producer and consumers use for
// the probe's whole life, built once by New.
type shared struct {
	cfg        config.Probe
	clk        clock        // the probe's steady time: every in-process latency
	workerRuns []uint64     // BenchOptions.WorkerRuns
	partitions atomic.Int32 // grows when partitions are added
	// ev are the probe's sinks (Options.Sinks): every event of the probe
	// goes to them.
	ev      *event.Hooks
	leaders *partitionLeaders // leaders.go
	live    *liveness
	errs    *errLog
	logger  *slog.Logger
	// produceTimes (producer) and positions (consumers) feed the lag.
	produceTimes *produceTimes
	positions    *positions
	held         atomic.Bool // consumers hold off polling (HoldConsumers)
	replica      *replica    // replica.go; nil without a replica block
	reb          *rebalances // the group's rebalances (rebalance.go)
	payload      [][]byte    // the payload file's entries (Options.Payload)
	gone         *goneLog    // catchup_gone.go; nil without catch-up windows
}

// runState is one run's: its run id and trackers. A recreated topic starts
// a new run (Probe.newRun).
type runState struct {
	runID   uint64
	tracker *tracker.Tracker
	share   *tracker.Share // share.go: consumer.kind share; nil until its group is set up
}

// newRunState is the state of run runID, before its share group is set up.
func newRunState(cfg config.Probe, runID uint64) runState {
	return runState{runID: runID, tracker: tracker.New(runID, tracker.Config{GracePeriod: time.Duration(cfg.LossGracePeriod)})}
}

// seqTrackers are the trackers that hear of each record the producer is
// done with: acknowledged, or given up on (it will never arrive). Both
// trackers hear of both, so a failed record leaves neither a gap that
// outlives the grace period.
type seqTrackers struct {
	// own is the consumer's tracker; nil without a consumer (no loss to
	// keep) and in a bench run of several workers (WorkerRuns: the others
	// read a part of this run's records, so its gaps are no loss; the
	// merge counts loss exactly).
	own     *tracker.Tracker
	share   *tracker.Share // the share group's tracker instead of own (consumer.kind share)
	replica *replica       // nil without a replica block
	gone    *goneLog       // nil without catch-up windows
}

func (d runDeps) seqTrackers() seqTrackers {
	ts := seqTrackers{replica: d.replica, gone: d.gone}
	d.gone.producing(d.runID)
	switch {
	case d.cfg.Consumer.Enabled && d.share != nil:
		ts.share = d.share
	case d.cfg.Consumer.Enabled && len(d.workerRuns) == 0:
		ts.own = d.tracker
	}
	return ts
}

// acked: the cluster acknowledged id at now (the probe's clock).
func (ts seqTrackers) acked(id RecordID, now time.Time) {
	if ts.own != nil {
		ts.own.Acked(id.Partition, id.Seq, now)
	}
	if ts.share != nil {
		ts.share.Acked(id.Partition, id.Seq, now)
	}
	ts.replica.acked(id, now)
}

// wontArrive: the producer gave up on id at now.
func (ts seqTrackers) wontArrive(id RecordID, now time.Time) {
	if ts.own != nil {
		ts.own.WillNotArrive(id.Partition, id.Seq, id.Seq+1, now)
	}
	if ts.share != nil {
		ts.share.WillNotArrive(id.Partition, id.Seq, id.Seq+1, now)
	}
	ts.replica.wontArrive(id, now)
	ts.gone.add(id.Run, id.Partition, id.Seq, id.Seq+1)
}

// ended: the transaction that held [lo, hi) of partition in run was
// aborted (abort) or ended with an unknown outcome.
func (ts seqTrackers) ended(run uint64, partition int32, lo, hi uint64, abort bool, now time.Time) {
	switch {
	case ts.own != nil && abort:
		ts.own.Aborted(partition, lo, hi, now)
	case ts.own != nil:
		ts.own.WillNotArrive(partition, lo, hi, now)
	}
	if ts.share != nil {
		ts.share.WillNotArrive(partition, lo, hi, now)
	}
	ts.replica.wontArriveRange(run, partition, lo, hi, now)
	ts.gone.add(run, partition, lo, hi)
}
