package probetest

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
)

// fatalTB records a Fatalf and ends the goroutine, as testing.T does.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Helper() {}

func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// Value reads a present series and fails on a missing one instead of
// reading 0.
func TestValueFailsOnMissingSeries(t *testing.T) {
	reg := prometheus.NewRegistry()
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "x_total", Help: "x"}, []string{"probe"})
	reg.MustRegister(c)
	c.WithLabelValues("a").Add(3)
	f := (&Run{Registry: reg}).Gather(t)
	if v := Value(t, f, "x_total", "probe", "a"); v != 3 {
		t.Errorf("x_total{probe=a} = %v, want 3", v)
	}
	for _, q := range [][]string{{"x_total", "probe", "b"}, {"y_total"}} {
		tb := &fatalTB{TB: t}
		done := make(chan struct{})
		go func() {
			defer close(done)
			Value(tb, scrape.Families(f), q[0], q[1:]...)
		}()
		<-done
		if tb.msg == "" {
			t.Errorf("Value%v of a missing series did not fail the test", q)
		}
	}
}
