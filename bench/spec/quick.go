package spec

import "go.yaml.in/yaml/v3"

// Quick is the bench the quick flags (--bench.num-records, --bench.record-size,
// --bench.partitions, --bench.acks) stand for: one scenario whose name and
// columns are its record size, partitions and acks.
type Quick struct {
	NumRecords int64       `yaml:"num_records"`
	Matrix     quickMatrix `yaml:"matrix"`
}

type quickMatrix struct {
	RecordSize []int    `yaml:"record_size"`
	Partitions []int32  `yaml:"partitions"`
	Acks       []string `yaml:"acks"`
}

// NewQuick is the quick bench of these settings.
func NewQuick(numRecords int64, recordSize int, partitions int32, acks string) Quick {
	return Quick{NumRecords: numRecords, Matrix: quickMatrix{[]int{recordSize}, []int32{partitions}, []string{acks}}}
}

// Bench expands the quick bench through the defaults, checks and expansion
// of a bench file, without writing one.
func (q Quick) Bench() (*Bench, error) {
	var f File
	f.SetDefaults()
	f.NumRecords = q.NumRecords
	if err := f.Matrix.Encode(q.Matrix); err != nil {
		return nil, err
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return f.expand()
}

// YAML is the bench file the quick bench stands for, shown in the HTML
// report.
func (q Quick) YAML() ([]byte, error) { return yaml.Marshal(q) }
