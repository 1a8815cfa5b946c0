package bench

import (
	"os"

	"github.com/kafka-bench/kafka_bench_exporter/bench/result"
	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
)

// Source is the text of a bench, shown on an HTML page: the bench file as
// it was read, or the bench the quick flags stand for. The zero Source has
// none.
type Source struct {
	text *result.FileText
}

// Text is the bench's text; nil when it could not be had.
func (s Source) Text() *result.FileText { return s.text }

// QuickSource is the source of the bench the quick flags q stand for.
func QuickSource(q spec.Quick) Source {
	data, err := q.YAML()
	if err != nil {
		return Source{}
	}
	return Source{&result.FileText{Name: "(quick flags)", Text: string(data)}}
}

// ReadSource reads the bench file path.
func ReadSource(path string) (Source, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Source{}, err
	}
	return Source{&result.FileText{Name: path, Text: string(data)}}, nil
}

// Load reads the bench file path once: the bench it holds, expanded to run
// (spec.LoadData), and its Source.
func Load(path string) (*spec.Bench, Source, error) {
	src, err := ReadSource(path)
	if err != nil {
		return nil, Source{}, err
	}
	b, err := spec.LoadData(path, []byte(src.text.Text))
	if err != nil {
		return nil, Source{}, err
	}
	return b, src, nil
}
