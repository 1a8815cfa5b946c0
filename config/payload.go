package config

import "go.yaml.in/yaml/v3"

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
	Kind string `yaml:"kind" values:"{random_letters}, {random_bytes}, {file}" doc:"what follows the 36-byte header: {random_letters} (A–Z, as ProducerPerformance), {random_bytes} (incompressible), {file} (entries of {payload.file}); see How it measures"`
	// File and Delimiter are used with kind file; a relative path is
	// relative to the configuration file's directory.
	File      string `yaml:"file" values:"with kind {file} only; must hold at least one entry" doc:"entries drawn at random, one per record (as ProducerPerformance's {--payload-file}); a relative path is relative to the configuration file"`
	Delimiter string `yaml:"delimiter" values:"not empty" doc:"splits {payload.file} into entries; taken literally (not a regex, unlike Java's); empty entries are skipped"`
}

// SetDefaults picks random letters, entries one per line.
func (p *Payload) SetDefaults() {
	p.Kind = PayloadRandomLetters
	p.Delimiter = DefaultPayloadDelimiter
}

// validate checks the payload keys; Resolve reads the file of kind file.
func (p *Payload) validate(s string) error {
	switch p.Kind {
	case PayloadRandomLetters, PayloadRandomBytes:
		if p.File != "" {
			return FieldError(s, "payload.file", p.File, "is only read with payload.kind: file")
		}
		return nil
	case PayloadFile:
	default:
		return FieldError(s, "payload.kind", p.Kind, "must be one of random_letters, random_bytes, file")
	}
	switch {
	case p.File == "":
		return FieldError(s, "payload.file", p.File, "payload.kind file needs a file of entries")
	case p.Delimiter == "":
		return FieldError(s, "payload.delimiter", p.Delimiter, "must not be empty")
	}
	return nil
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
