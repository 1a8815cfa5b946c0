package bench

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	benchreport "github.com/kafka-bench/kafka_bench_exporter/bench/report"
	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
	"github.com/kafka-bench/kafka_bench_exporter/probes/promsink"
)

// quickOptions are Options of a quick bench of n records on the embedded
// cluster.
func quickOptions(t *testing.T, n int64) (Options, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	q := spec.NewQuick(n, 100, 1, "1")
	b, err := q.Bench()
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	return Options{Name: "prog bench", Bench: b, Source: QuickSource(q), Embedded: true, Format: benchreport.FormatMarkdown,
		Logger: slog.New(slog.DiscardHandler), Stdout: &stdout, Stderr: &stderr}, &stdout, &stderr
}

// registrations counts what registers on a Registerer.
type registrations struct {
	prometheus.Registerer
	n int
}

func (r *registrations) Register(c prometheus.Collector) error {
	r.n++
	return r.Registerer.Register(c)
}

func (r *registrations) MustRegister(cs ...prometheus.Collector) {
	r.n += len(cs)
	r.Registerer.MustRegister(cs...)
}

// With Serve the Kafka clients register their metrics on the registerer it
// returns, and the bench stops serving at its end; a Serve that fails is
// bad input, named.
func TestRunServesMetrics(t *testing.T) {
	o, stdout, stderr := quickOptions(t, 200)
	reg := &registrations{Registerer: prometheus.NewRegistry()}
	stopped := false
	o.Serve = func(context.Context, context.CancelFunc) ([]event.Sink, prometheus.Registerer, func(), error) {
		return []event.Sink{promsink.NewMetrics(prometheus.NewRegistry())}, reg, func() { stopped = true }, nil
	}
	if code := Run(context.Background(), o); code != ExitOK {
		t.Fatalf("exit code %d; stderr:\n%s\nstdout:\n%s", code, stderr, stdout)
	}
	if !stopped {
		t.Error("the bench did not stop serving")
	}
	if reg.n == 0 {
		t.Error("no Kafka client registered its metrics on Serve's registerer")
	}
	if !strings.Contains(stdout.String(), "200 records sent") {
		t.Errorf("stdout lacks the ProducerPerformance line:\n%s", stdout)
	}

	o, _, stderr = quickOptions(t, 10)
	o.Serve = func(context.Context, context.CancelFunc) ([]event.Sink, prometheus.Registerer, func(), error) {
		return nil, nil, nil, errors.New("listen tcp :1: bind: permission denied")
	}
	if code := Run(context.Background(), o); code != ExitBadInput || stderr.String() != "prog bench: listen tcp :1: bind: permission denied\n" {
		t.Errorf("failing Serve: exit code %d, stderr %q; want %d and its error", code, stderr, ExitBadInput)
	}
}
