package config

import (
	"fmt"
	"math"
	"time"

	"github.com/prometheus/common/model"
	"go.yaml.in/yaml/v3"
)

// CatchUp is one catch-up window of a probe (probes/catchup.go): every
// Interval a reader without a group reads the probe's own topic from the
// records written From ago (or from the log start) on, for at most
// MaxRecords, MaxBytes and MaxDuration, at most MaxBytesPerSecond, and
// checks every record it reads. It measures the reads a consumer makes when
// it catches up on a backlog: from disk, or from the remote tier.
type CatchUp struct {
	// From is where the window starts: CatchUpFromStart (the log start)
	// or a duration (the first record written that long ago).
	From        string         `yaml:"from" values:"{start}, or a duration > 0 such as {1h}; unique within the probe" doc:"where each read starts: the first record written this long ago, or the log's start; the {window} label of the catch-up metrics"`
	Interval    model.Duration `yaml:"interval" values:"> {max_duration}" doc:"time from the start of one read to the start of the next"`
	MaxRecords  int64          `yaml:"max_records" default:"0 (no bound)" values:"≥ 0" doc:"a read ends after this many records"`
	MaxBytes    int64          `yaml:"max_bytes" default:"0 (no bound)" values:"≥ 0" doc:"a read ends after this many record value bytes; a window under 64 MiB measures the latency of the first fetches more than throughput"`
	MaxDuration model.Duration `yaml:"max_duration" values:"> 0" doc:"a read ends after this long, and at the end offsets it found at its start in any case"`
	// MaxBytesPerSecond caps the read's pace: an always-on canary must not
	// become the load that hurts the brokers; 0 reads as fast as it can.
	MaxBytesPerSecond float64 `yaml:"max_bytes_per_second" default:"52428800 (50 MiB/s)" values:"≥ 0; 0 = no cap" doc:"caps the read's pace, in record value bytes per second averaged from its start (a fetch is asked for only once the bytes read so far are due); 0 reads as fast as the brokers serve"`
	// Consumer overrides the probe's consumer settings for this reader.
	Consumer CatchUpConsumer `yaml:"consumer"`
}

// CatchUpConsumer are the consumer settings of a catch-up reader: unset,
// the probe's consumer block's.
type CatchUpConsumer struct {
	FetchMinBytes          *int32 `yaml:"fetch.min.bytes" default:"unset: the probe's {consumer.fetch.min.bytes}" values:"≥ 1"`
	FetchMaxBytes          *int32 `yaml:"fetch.max.bytes" default:"unset: the probe's {consumer.fetch.max.bytes}" values:"1 … 104857600 (franz-go's response limit)"`
	MaxPartitionFetchBytes *int32 `yaml:"max.partition.fetch.bytes" default:"unset: the probe's {consumer.max.partition.fetch.bytes}" values:"≥ 1"`
	FetchMaxWaitMS         *int   `yaml:"fetch.max.wait.ms" default:"unset: the probe's {consumer.fetch.max.wait.ms}" values:"≥ 10 (franz-go)"`
	MaxPollRecords         *int   `yaml:"max.poll.records" default:"unset: the probe's {consumer.max.poll.records}" values:"≥ 1"`
}

// Catch-up defaults and limits.
const (
	// CatchUpFromStart is From for a window that starts at the log start.
	CatchUpFromStart             = "start"
	DefaultCatchUpInterval       = 15 * time.Minute
	DefaultCatchUpMaxDuration    = time.Minute
	DefaultCatchUpBytesPerSecond = 50 << 20
	// CatchUpFloorBytes is the window below which a read measures the
	// latency of its first fetches more than throughput.
	CatchUpFloorBytes = 64 << 20
	maxFetchMaxBytes  = 104857600
)

// SetDefaults fills what a catch-up block does not set.
func (c *CatchUp) SetDefaults() {
	c.Interval = model.Duration(DefaultCatchUpInterval)
	c.MaxDuration = model.Duration(DefaultCatchUpMaxDuration)
	c.MaxBytesPerSecond = DefaultCatchUpBytesPerSecond
}

// UnmarshalYAML fills the defaults before the file's keys apply.
func (c *CatchUp) UnmarshalYAML(n *yaml.Node) error {
	c.SetDefaults()
	type plain CatchUp
	return n.Decode((*plain)(c))
}

// Age is how far back the window starts; fromStart says it starts at the
// log start instead. Valid after validate.
func (c *CatchUp) Age() (age time.Duration, fromStart bool) {
	if c.From == CatchUpFromStart {
		return 0, true
	}
	d, _ := model.ParseDuration(c.From)
	return time.Duration(d), false
}

// Applied is the probe's consumer block with the reader's overrides.
func (c *CatchUpConsumer) Applied(probe Consumer) Consumer {
	if c.FetchMinBytes != nil {
		probe.FetchMinBytes = *c.FetchMinBytes
	}
	if c.FetchMaxBytes != nil {
		probe.FetchMaxBytes = *c.FetchMaxBytes
	}
	if c.MaxPartitionFetchBytes != nil {
		probe.MaxPartitionFetchBytes = *c.MaxPartitionFetchBytes
	}
	if c.FetchMaxWaitMS != nil {
		probe.FetchMaxWaitMS = *c.FetchMaxWaitMS
	}
	if c.MaxPollRecords != nil {
		probe.MaxPollRecords = *c.MaxPollRecords
	}
	return probe
}

// validateCatchUps checks each window and that no two share a start.
func validateCatchUps(s string, windows []CatchUp) error {
	seen := map[string]bool{}
	for i := range windows {
		w := &windows[i]
		key := fmt.Sprintf("catch_up[%d]", i)
		if err := w.validate(s, key); err != nil {
			return err
		}
		if seen[w.From] {
			return FieldError(s, key+".from", w.From, "listed twice: each window of a probe needs its own start (the window label)")
		}
		seen[w.From] = true
	}
	return nil
}

func (c *CatchUp) validate(s, key string) error {
	if c.From != CatchUpFromStart {
		d, err := model.ParseDuration(c.From)
		if err != nil || d <= 0 {
			return FieldError(s, key+".from", c.From, "must be start or a duration > 0 such as 1h (the records written that long ago)")
		}
	}
	switch {
	case c.MaxDuration <= 0:
		return FieldError(s, key+".max_duration", c.MaxDuration, "must be > 0: a read must end")
	case c.Interval <= c.MaxDuration:
		return FieldError(s, key+".interval", c.Interval, fmt.Sprintf("must exceed max_duration (%s), so reads never overlap", c.MaxDuration))
	case c.MaxRecords < 0:
		return FieldError(s, key+".max_records", c.MaxRecords, "must be >= 0 (0 = no bound)")
	case c.MaxBytes < 0:
		return FieldError(s, key+".max_bytes", c.MaxBytes, "must be >= 0 (0 = no bound)")
	case math.IsNaN(c.MaxBytesPerSecond) || math.IsInf(c.MaxBytesPerSecond, 0) || c.MaxBytesPerSecond < 0:
		return FieldError(s, key+".max_bytes_per_second", c.MaxBytesPerSecond, "must be a number >= 0 (0 = no cap)")
	}
	return c.Consumer.validate(s, key+".consumer")
}

func (c *CatchUpConsumer) validate(s, key string) error {
	switch {
	case c.FetchMinBytes != nil && *c.FetchMinBytes < 1:
		return FieldError(s, key+".fetch.min.bytes", *c.FetchMinBytes, "must be >= 1")
	case c.FetchMaxBytes != nil && (*c.FetchMaxBytes < 1 || *c.FetchMaxBytes > maxFetchMaxBytes):
		return FieldError(s, key+".fetch.max.bytes", *c.FetchMaxBytes, fmt.Sprintf("must be between 1 and %d (franz-go's response limit)", maxFetchMaxBytes))
	case c.MaxPartitionFetchBytes != nil && *c.MaxPartitionFetchBytes < 1:
		return FieldError(s, key+".max.partition.fetch.bytes", *c.MaxPartitionFetchBytes, "must be >= 1")
	case c.FetchMaxWaitMS != nil && *c.FetchMaxWaitMS < 10:
		return FieldError(s, key+".fetch.max.wait.ms", *c.FetchMaxWaitMS, "must be >= 10 (franz-go)")
	case c.MaxPollRecords != nil && *c.MaxPollRecords < 1:
		return FieldError(s, key+".max.poll.records", *c.MaxPollRecords, "must be >= 1")
	}
	return nil
}
