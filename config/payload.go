package config

import (
	"bytes"
	"fmt"

	"go.yaml.in/yaml/v3"
)

// Payload kinds: what follows the probe header in each record.
const (
	// PayloadRandomLetters is random A-Z, as Kafka's ProducerPerformance
	// sends without a payload file.
	PayloadRandomLetters = "random_letters"
	// PayloadRandomBytes is random bytes: incompressible.
	PayloadRandomBytes = "random_bytes"
	// PayloadFile draws each record's body at random from a file's entries,
	// as ProducerPerformance's --payload-file.
	PayloadFile = "file"
)

// DefaultPayloadDelimiter splits a payload file into entries, as
// ProducerPerformance's --payload-delimiter default.
const DefaultPayloadDelimiter = "\n"

// Payload says what each record carries after the probe header.
type Payload struct {
	Kind string `yaml:"kind"`
	// File and Delimiter are used with kind file; a relative path is
	// relative to the configuration file's directory.
	File      string `yaml:"file"`
	Delimiter string `yaml:"delimiter"`

	baseDir string
}

// SetDefaults picks random letters, entries one per line.
func (p *Payload) SetDefaults() {
	p.Kind = PayloadRandomLetters
	p.Delimiter = DefaultPayloadDelimiter
}

// Entries reads the payload file and splits it at every Delimiter (taken
// literally, unlike Java's regex); empty entries are dropped.
func (p *Payload) Entries() ([][]byte, error) {
	b, err := readFile("payload.file", p.baseDir, p.File)
	if err != nil {
		return nil, err
	}
	var out [][]byte
	for e := range bytes.SplitSeq(b, []byte(p.Delimiter)) {
		if len(e) > 0 {
			out = append(out, e)
		}
	}
	return out, nil
}

// validate checks the payload keys; for kind file it reads the file and
// returns the largest record it makes (header included), else 0.
func (p *Payload) validate(s string) (maxRecord int, err error) {
	switch p.Kind {
	case PayloadRandomLetters, PayloadRandomBytes:
		if p.File != "" {
			return 0, FieldError(s, "payload.file", p.File, "is only read with payload.kind: file")
		}
		return 0, nil
	case PayloadFile:
	default:
		return 0, FieldError(s, "payload.kind", p.Kind, "must be one of random_letters, random_bytes, file")
	}
	switch {
	case p.File == "":
		return 0, FieldError(s, "payload.file", p.File, "payload.kind file needs a file of entries")
	case p.Delimiter == "":
		return 0, FieldError(s, "payload.delimiter", p.Delimiter, "must not be empty")
	}
	entries, err := p.Entries()
	if err != nil {
		return 0, fmt.Errorf("%s: %w", s, err)
	}
	if len(entries) == 0 {
		return 0, FieldError(s, "payload.file", p.File, fmt.Sprintf("holds no entries (split at payload.delimiter %q)", p.Delimiter))
	}
	for _, e := range entries {
		maxRecord = max(maxRecord, HeaderSize+len(e))
	}
	if maxRecord > maxRecordSize {
		return 0, FieldError(s, "payload.file", p.File, fmt.Sprintf("has an entry of %d bytes: a record may be at most %d", maxRecord-HeaderSize, maxRecordSize))
	}
	return maxRecord, nil
}

// MarshalYAML prints the delimiter double-quoted: yaml.v3 would print a
// lone "\n" as a block scalar that reads back as "", so the printout of
// --config.check would not load again as the same configuration.
func (p Payload) MarshalYAML() (any, error) {
	str := func(v string, style yaml.Style) *yaml.Node {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v, Style: style}
	}
	return &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
		str("kind", 0), str(p.Kind, 0),
		str("file", 0), str(p.File, 0),
		str("delimiter", 0), str(p.Delimiter, yaml.DoubleQuotedStyle),
	}}, nil
}
