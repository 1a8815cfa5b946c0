package probes

import (
	"context"
	"errors"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/backoff"
	"github.com/kafka-bench/kafka_bench_exporter/kclient"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
)

// The clients and reasons of a client that failed (event.ClientNames,
// event.ClientFailureReasons).
const (
	ClientAdmin        = event.ClientAdmin
	ClientProducer     = event.ClientProducer
	ClientConsumer     = event.ClientConsumer
	ClientReplica      = event.ClientReplica
	ClientGroup        = event.ClientGroup
	ClientReasonConfig = event.ClientReasonConfig
	ClientReasonAuth   = event.ClientReasonAuth
	ClientReasonOther  = event.ClientReasonOther
)

// Retries of a failing client start at firstRetry and double up to
// maxRetry: a lasting failure (a denied ACL) costs the cluster a request
// and the log a line every 30 s, not every second.
const (
	firstRetry = time.Second
	maxRetry   = 30 * time.Second
)

// retryBackoff is the wait after the n-th failure in a row (n >= 1).
func retryBackoff(n int) time.Duration {
	return backoff.Exp{First: firstRetry, Max: maxRetry}.After(n)
}

// buildError is a client that could not be built: the configuration was
// checked when loaded, so this is something that changed since (a file).
type buildError struct {
	client string
	err    error
}

func (e *buildError) Error() string { return e.err.Error() }
func (e *buildError) Unwrap() error { return e.err }

// clientFailed counts and logs the n-th failure in a row of client and
// holds probe_up at 0, with the error as the reason, until its clients
// have started (liveness.recovered).
func (p *Probe) clientFailed(client string, n int, err error) time.Duration {
	wait := p.countClientFailure(client, n, err)
	p.live.fail(time.Now(), client+": "+err.Error())
	return wait
}

// countClientFailure counts and logs the n-th failure in a row of client
// and returns the wait before the next attempt; probe_up is left alone (a
// replica reader restarted while the probe runs).
func (p *Probe) countClientFailure(client string, n int, err error) time.Duration {
	reason := ClientReasonOther
	var be *buildError
	switch {
	case errors.As(err, &be):
		reason = ClientReasonConfig
	case kclient.IsAuthError(err):
		reason = ClientReasonAuth
	}
	p.ev.ClientFailed(client, reason)
	wait := retryBackoff(n)
	p.logger.Warn("probe client failed; retrying", "client", client, "reason", reason, "failures", n, "retry_in", wait, "err", err)
	return wait
}

// sleep waits d or until ctx is done, reporting whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
