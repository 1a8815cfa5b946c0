package config

import (
	"fmt"
	"os"
	"reflect"

	"go.yaml.in/yaml/v3"
)

// Load reads, checks, decodes, defaults and validates a configuration file;
// ResolveFile reads the files it names.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	cfg, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}

// Parse is Load without the file: unknown keys and wrongly typed values are
// rejected before decoding, every default is filled, then Validate runs.
// It reads nothing: Resolve reads the files the configuration names.
func Parse(data []byte) (*Config, error) {
	cfg := &Config{}
	cfg.SetDefaults()
	doc, err := OneDocument(data, "a configuration file")
	if err != nil {
		return nil, err
	}
	if len(doc.Content) > 0 {
		root := doc.Content[0]
		if err := checkNode(root, reflect.TypeFor[Config](), "", ""); err != nil {
			return nil, err
		}
		if err := root.Decode(cfg); err != nil {
			return nil, fmt.Errorf("invalid YAML: %w", err)
		}
	}
	for i := range cfg.Probes {
		cfg.Probes[i].Resolve()
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// UnmarshalYAML fills a probe's defaults before the file's keys are applied,
// so an absent key keeps its default and a present one (even 0) wins.
func (p *Probe) UnmarshalYAML(n *yaml.Node) error {
	p.SetDefaults()
	type plain Probe
	return n.Decode((*plain)(p))
}

// NewProbe returns a probe with every default filled, for the command-line
// quick path and for tests.
func NewProbe(name string) Probe {
	var p Probe
	p.SetDefaults()
	p.Name = name
	return p
}

// Marshal renders the effective configuration (for --config.check).
func (c *Config) Marshal() ([]byte, error) {
	return yaml.Marshal(c)
}
