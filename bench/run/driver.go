package run

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/probes"
)

// failedMetric counts records the probe's producer gave up on; the error
// of a scenario with failures names it.
const failedMetric = "kafka_bench_produce_failed_total"

// StallSlack is added to delivery.timeout.ms: by then every stuck record has
// failed (and been counted), so a producer without progress for longer is
// stuck for good.
const StallSlack = 10 * time.Second

// driver takes one scenario through its phases (warm-up, producing,
// draining) and decides when each is over.
type driver struct {
	b               *spec.Bench
	probe           *probes.Probe
	rec             *Recorder
	label           string
	ctx             context.Context
	deliveryTimeout time.Duration
	exited          <-chan struct{}
	runErr          func() error // valid once exited is closed
	// group, set for one of several workers, drains the group all
	// workers' consumers share instead of this consumer's own records.
	group GroupDrain
}

// run returns nil when every record was produced and (with a consumer)
// read back.
func (d *driver) run(consume bool) error {
	var produceErr error
	if !d.b.ConsumeOnly {
		if err := d.produce(); err != nil {
			d.giveUp()
			return err
		}
		if failed := d.rec.FailedTotal(); failed > 0 {
			produceErr = fmt.Errorf("%d records failed to produce (%s{probe=%q})", failed, failedMetric, d.label)
		}
	}
	if !consume {
		return produceErr
	}
	drain := d.drain
	if d.group != nil {
		drain = d.drainGroup
	}
	if err := drain(); err != nil {
		if produceErr != nil {
			return fmt.Errorf("%w; %w", produceErr, err)
		}
		return err
	}
	return produceErr
}

// produce waits until the producer is done: num_records acknowledged or
// failed, or duration over and the buffered records flushed.
func (d *driver) produce() error {
	stall := d.deliveryTimeout + StallSlack
	done := d.rec.SentEnded
	stalled := func(n int64) error {
		return fmt.Errorf("producer: %d records acknowledged or failed, then nothing for %s", n, stall)
	}
	defer d.probe.StopProducing()
	if d.b.NumRecords > 0 {
		limit := d.b.WarmupRecords + d.b.NumRecords
		return d.wait(stall, done, func(n int64) bool { return n >= limit }, stalled)
	}
	warm := d.rec.WarmedUp()
	if err := d.wait(stall, done, func(int64) bool { return isClosed(warm) }, stalled); err != nil {
		return err
	}
	if err := d.sleep(d.b.Duration); err != nil {
		return err
	}
	// The producer flushes for at most a few seconds, then closes its
	// client, which fails what is left: either way every record sent ends.
	d.probe.StopProducing()
	lastSent := uint64(0)
	return d.wait(stall, done, func(n int64) bool {
		sent := d.probe.Sent()
		settled := sent == lastSent && n >= int64(sent)
		lastSent = sent
		return settled
	}, stalled)
}

// drain waits until the consumer has read every acknowledged record (or,
// consume-only, num_records or duration's worth).
func (d *driver) drain() error {
	stall := d.b.DrainTimeout
	// Producing, the target is every acknowledged record (but those of
	// transactions not committed), each read at least once: duplicates do
	// not count.
	target, progress := d.rec.Expected(), d.rec.AckedRead
	switch {
	case !d.b.ConsumeOnly:
	case d.b.NumRecords > 0:
		target, progress = d.b.WarmupRecords+d.b.NumRecords, d.rec.ConsumedTotal
	default:
		target, progress = d.b.WarmupRecords, d.rec.ConsumedTotal
	}
	stalled := func(n int64) error {
		return fmt.Errorf("consumer: read %d of %d records, then nothing for %s (drain_timeout)", n, target, stall)
	}
	err := d.wait(stall, progress, func(n int64) bool { return n >= target }, stalled)
	if err != nil || !d.b.ConsumeOnly || d.b.Duration == 0 {
		return err
	}
	return d.sleep(d.b.Duration)
}

// giveUp announces, for one of several workers, that this producer is done
// though it failed, so the other workers need not wait drain_timeout for it.
func (d *driver) giveUp() {
	if d.group != nil {
		d.group.GiveUp(d.ctx, d.rec.Expected())
	}
}

// drainGroup announces that this worker's producer is done and waits until
// the shared group has read every worker's records. A worker whose
// announcement never comes (it died) ends the wait after drain_timeout
// without progress; the merge names that worker missing.
func (d *driver) drainGroup() error {
	g := d.group
	defer g.Close()
	if err := g.Announce(d.ctx, d.rec.Expected()); err != nil {
		return err
	}
	stall := d.b.DrainTimeout
	errMissing := errors.New("markers missing")
	err := d.wait(stall, func() int64 { return g.Check(d.ctx) }, func(int64) bool { return g.Done() },
		func(int64) error {
			if err := g.Stalled(stall); err != nil {
				return err
			}
			return errMissing
		})
	if errors.Is(err, errMissing) {
		return nil
	}
	return err
}

// wait polls progress until done holds; no progress for stall fails with
// stalled's error, and so do an interrupt and an early probe exit.
func (d *driver) wait(stall time.Duration, progress func() int64, done func(int64) bool, stalled func(int64) error) error {
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	last, since := int64(-1), time.Now()
	for {
		n := progress()
		if done(n) {
			return nil
		}
		if n != last {
			last, since = n, time.Now()
		} else if time.Since(since) > stall {
			return stalled(n)
		}
		select {
		case <-d.ctx.Done():
			return ErrInterrupted
		case <-d.exited:
			return d.exitErr()
		case <-tick.C:
		}
	}
}

// sleep waits d, or less when interrupted or the probe exits.
func (d *driver) sleep(dur time.Duration) error {
	t := time.NewTimer(dur)
	defer t.Stop()
	select {
	case <-d.ctx.Done():
		return ErrInterrupted
	case <-d.exited:
		return d.exitErr()
	case <-t.C:
		return nil
	}
}

func (d *driver) exitErr() error {
	if err := d.runErr(); err != nil {
		return err
	}
	return errors.New("the probe stopped before the scenario ended")
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
