package config

import (
	"reflect"
	"testing"
	"time"

	"github.com/prometheus/common/model"
)

func TestCapacityDefaultsAndSteps(t *testing.T) {
	cfg, err := Parse([]byte("probes:\n  - name: p1\n    record_size: 1000\n    capacity: {max_rate: 5000, max_bytes_per_second: 2000000}\n  - name: p2\n"))
	if err != nil {
		t.Fatal(err)
	}
	c := cfg.Probes[0].Capacity
	if c == nil {
		t.Fatal("capacity block not decoded")
	}
	if cfg.Probes[1].Capacity != nil {
		t.Error("a probe without a capacity block has capacity on")
	}
	want := Capacity{
		Interval: model.Duration(time.Hour), StepDuration: model.Duration(10 * time.Second), StartRate: 100, Growth: 1.5,
		MaxRate: 5000, MaxBytesPerSecond: 2000000, LatencySLO: model.Duration(50 * time.Millisecond), Topic: "kafka-bench-p1-capacity",
	}
	if *c != want {
		t.Errorf("capacity = %+v, want %+v", *c, want)
	}
	// The byte ceiling (2000 records/s of 1000 bytes) is below max_rate.
	steps := c.Steps(cfg.Probes[0].RecordSize)
	wantSteps := []float64{100, 150, 225, 337.5, 506.25, 759.375, 1139.0625, 1708.59375, 2000}
	if !reflect.DeepEqual(steps, wantSteps) {
		t.Errorf("steps = %v, want %v", steps, wantSteps)
	}
}
