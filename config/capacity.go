package config

import (
	"fmt"
	"math"
	"time"

	"github.com/prometheus/common/model"
	"go.yaml.in/yaml/v3"
)

// Capacity is a probe's capacity canary (probes/capacity): every Interval
// (±CapacityJitter) it ramps the rate on a topic of its own, step by step,
// and reports the highest step whose p99 stayed within LatencySLO. Absent
// (nil) means off.
type Capacity struct {
	Interval     model.Duration `yaml:"interval" values:"> 0; must exceed the longest run (warm-up + steps × {step_duration}) by 10 %" doc:"time from the end of one run to the start of the next, ±10 % jitter"`
	StepDuration model.Duration `yaml:"step_duration" values:"≥ 1s" doc:"length of each step, so each step has records enough for a p99; shorter than the brokers' quota window ({quota.window.num} × {quota.window.size.seconds}, 11 s by default, read with DescribeConfigs at each run's start), a step can pass before Kafka throttles: the run then warns at its start and holds the best step for the quota window before reporting it"`
	// StartRate is the first step's rate; each next step is Growth times
	// the last, up to the ceiling set by MaxRate and MaxBytesPerSecond
	// (0 = that bound is off; at least one is required).
	StartRate         float64        `yaml:"start_rate" values:"≥ 1e-9, at most the ceiling and 1e7" doc:"records/s of the warm-up and the first step"`
	Growth            float64        `yaml:"growth" values:"> 1; at most 100 steps to the ceiling" doc:"each step's rate is the last one's times this"`
	MaxRate           float64        `yaml:"max_rate" default:"0 (off)" values:"0, or 1e-9 … 1e7; this or {max_bytes_per_second} required" doc:"hard ceiling in records/s"`
	MaxBytesPerSecond float64        `yaml:"max_bytes_per_second" default:"0 (off)" values:"≥ 0; this or {max_rate} required" doc:"hard ceiling in value bytes/s"`
	LatencySLO        model.Duration `yaml:"latency_slo" values:"> 0" doc:"a step fails when its produce p99 exceeds it"`
	// EndToEndSLO, when > 0, also bounds each step's end-to-end p99.
	EndToEndSLO model.Duration `yaml:"end_to_end_slo" default:"0 (off)" values:"≥ 0" doc:"when > 0 a step also fails when its end-to-end p99 exceeds it"`
	// Topic defaults to the probe's topic + CapacityTopicSuffix.
	Topic string `yaml:"topic" default:"{<topic>-capacity}" values:"differs from every probe topic" doc:"the runs' own topic, created like the probe's ({create_topic}, plus {retention.ms} and {segment.ms} of 10 min unless {configs} set them)"`
}

// Capacity defaults and limits.
const (
	CapacityTopicSuffix     = "-capacity"
	CapacityJitter          = 0.1 // ± fraction of interval
	DefaultCapacityInterval = time.Hour
	DefaultCapacityStep     = 10 * time.Second
	DefaultCapacityStart    = 100
	DefaultCapacityGrowth   = 1.5
	DefaultCapacitySLO      = 50 * time.Millisecond
	MaxCapacitySteps        = 100
	minCapacityStep         = time.Second
)

// SetDefaults fills what the capacity block does not set.
func (c *Capacity) SetDefaults() {
	c.Interval = model.Duration(DefaultCapacityInterval)
	c.StepDuration = model.Duration(DefaultCapacityStep)
	c.StartRate = DefaultCapacityStart
	c.Growth = DefaultCapacityGrowth
	c.LatencySLO = model.Duration(DefaultCapacitySLO)
}

// UnmarshalYAML fills the defaults before the file's keys apply.
func (c *Capacity) UnmarshalYAML(n *yaml.Node) error {
	c.SetDefaults()
	type plain Capacity
	return n.Decode((*plain)(c))
}

// Ceiling is the highest rate a run may reach, in records/s.
func (c *Capacity) Ceiling(recordSize int) float64 {
	ceiling := math.Inf(1)
	if c.MaxRate > 0 {
		ceiling = c.MaxRate
	}
	if c.MaxBytesPerSecond > 0 {
		ceiling = min(ceiling, c.MaxBytesPerSecond/float64(recordSize))
	}
	return ceiling
}

// Steps is the ladder of step rates: StartRate × Growth^k, ending with the
// ceiling itself. It stops early after MaxCapacitySteps + 1 entries, so a
// caller can tell a ladder that is too long.
func (c *Capacity) Steps(recordSize int) []float64 {
	ceiling := c.Ceiling(recordSize)
	var steps []float64
	for r := c.StartRate; len(steps) <= MaxCapacitySteps; r *= c.Growth {
		if r >= ceiling {
			steps = append(steps, ceiling)
			break
		}
		steps = append(steps, r)
	}
	return steps
}

// RunLength is how long a run of n steps lasts at the least: a warm-up
// step at start_rate, the n steps, and hold, the hold of the best step for
// the brokers' quota window (0 without one), which is known only at run
// time.
func (c *Capacity) RunLength(n int, hold time.Duration) time.Duration {
	return time.Duration(n+1)*time.Duration(c.StepDuration) + hold
}

// IntervalExceeds says whether the interval, less its jitter, exceeds a run
// of length d: the next run starts an interval after a run ends, so a
// longer run makes runs come less often than the interval says.
func (c *Capacity) IntervalExceeds(d time.Duration) bool {
	return float64(c.Interval)*(1-CapacityJitter) > float64(d)
}

func (c *Capacity) validate(s string, recordSize int) error {
	if err := CheckRate(s, "capacity.start_rate", c.StartRate, math.SmallestNonzeroFloat64, "must be a number > 0"); err != nil {
		return err
	}
	if err := CheckRate(s, "capacity.max_rate", c.MaxRate, 0, "must be a number >= 0 (0 = no ceiling in records/s)"); err != nil {
		return err
	}
	switch {
	case c.Interval <= 0:
		return FieldError(s, "capacity.interval", c.Interval, "must be > 0")
	case c.StepDuration < model.Duration(minCapacityStep):
		return FieldError(s, "capacity.step_duration", c.StepDuration, "must be >= 1s, so each step has records enough for a p99")
	case !(c.Growth > 1) || math.IsInf(c.Growth, 1): // NaN fails every comparison
		return FieldError(s, "capacity.growth", c.Growth, "must be > 1 (the rate factor from one step to the next)")
	case !(c.MaxBytesPerSecond >= 0) || math.IsInf(c.MaxBytesPerSecond, 1):
		return FieldError(s, "capacity.max_bytes_per_second", c.MaxBytesPerSecond, "must be a number >= 0 (0 = no ceiling in bytes/s)")
	case c.MaxRate == 0 && c.MaxBytesPerSecond == 0:
		return FieldError(s, "capacity.max_rate", c.MaxRate, "set max_rate or max_bytes_per_second: a capacity run needs a hard ceiling")
	case c.StartRate > c.Ceiling(recordSize):
		return FieldError(s, "capacity.start_rate", c.StartRate, fmt.Sprintf("above the ceiling of max_rate and max_bytes_per_second (%g records/s)", c.Ceiling(recordSize)))
	case c.LatencySLO <= 0:
		return FieldError(s, "capacity.latency_slo", c.LatencySLO, "must be > 0")
	}
	steps := c.Steps(recordSize)
	if len(steps) > MaxCapacitySteps {
		return FieldError(s, "capacity.growth", c.Growth, fmt.Sprintf("the ramp from start_rate to the ceiling takes more than %d steps", MaxCapacitySteps))
	}
	longest := c.RunLength(len(steps), 0)
	if !c.IntervalExceeds(longest) {
		return FieldError(s, "capacity.interval", c.Interval, fmt.Sprintf("must exceed the longest run (a warm-up and %d steps of %s = %s) by the 10 %% jitter, so runs never overlap", len(steps), c.StepDuration, model.Duration(longest)))
	}
	return nil
}
