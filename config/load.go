package config

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"

	"go.yaml.in/yaml/v3"

	"github.com/kafka-bench/kafka_bench_exporter/redact"
	"github.com/kafka-bench/kafka_bench_exporter/yamlnode"
)

// LoadFile reads, checks, decodes, defaults and validates a configuration
// file; ResolveFile reads the files it names.
//
// The Kafka client properties file that kafka.properties_file names is
// read here too, relative to the configuration file's directory, and
// merged under the file's keys (clientprops.go): it is configuration, as
// the YAML is.
func LoadFile(path string) (*Config, error) { return load(path, "", nil) }

// load is Load with the properties file propsFile (--kafka.properties-file,
// relative to the working directory) in place of the file's
// kafka.properties_file when it is not empty. An empty path reads no
// configuration file: the configuration is propsFile's alone, with the
// probe defaultProbe when it is not nil, so that the properties file's
// producer and consumer keys apply to it.
func load(path, propsFile string, defaultProbe *yaml.Node) (*Config, error) {
	var data []byte
	dir := ""
	if path != "" {
		var err error
		if data, err = os.ReadFile(path); err != nil {
			return nil, err
		}
		dir = filepath.Dir(path)
	}
	var given *yaml.Node
	if propsFile != "" {
		abs, err := filepath.Abs(propsFile)
		if err != nil {
			return nil, FieldError("", "--kafka.properties-file", propsFile, err.Error())
		}
		given = yamlnode.Str(abs)
	}
	cfg, err := parseWith(data, func(name string) ([]byte, string, error) {
		p := resolvePath(dir, name)
		b, err := os.ReadFile(p)
		return b, filepath.Dir(p), err
	}, given, defaultProbe)
	if err != nil && path != "" {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, err
}

// Parse is Load without the file: unknown keys and wrongly typed values are
// rejected before decoding, every default is filled, then Validate runs.
// It reads nothing: Resolve reads the files the configuration names, and a
// kafka.properties_file is refused (Load reads it).
func Parse(data []byte) (*Config, error) { return parse(data, nil) }

// readProps reads the properties file named name and returns its content
// and the directory its relative paths are relative to.
type readProps func(name string) (data []byte, dir string, err error)

func parse(data []byte, read readProps) (*Config, error) { return parseWith(data, read, nil, nil) }

// parseWith is parse with kafka.properties_file set to propsFile, and
// probes set to the one probe, where they are not nil.
func parseWith(data []byte, read readProps, propsFile, probe *yaml.Node) (*Config, error) {
	cfg := &Config{}
	cfg.SetDefaults()
	doc, err := OneDocument(data, "a configuration file")
	if err != nil {
		return nil, err
	}
	if (propsFile != nil || probe != nil) && len(doc.Content) == 0 {
		doc.Content = []*yaml.Node{yamlnode.Mapping()}
	}
	if len(doc.Content) > 0 {
		root := doc.Content[0]
		if propsFile != nil && root.Kind == yaml.MappingNode {
			yamlnode.SetPath(root, []string{"kafka", "properties_file"}, propsFile)
		}
		if probe != nil && root.Kind == yaml.MappingNode {
			yamlnode.Put(root, "probes", &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: []*yaml.Node{probe}})
		}
		if err := mergeProperties(root, read); err != nil {
			return nil, err
		}
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

// Marshal renders the effective configuration (for --config.check),
// through the one redaction rule: secrets are Secret already, and a URL's
// credentials (http_config.proxy_url) go too.
func (c *Config) Marshal() ([]byte, error) {
	b, err := yaml.Marshal(c)
	if err != nil {
		return nil, err
	}
	return []byte(redact.YAML(string(b))), nil
}

// mergeProperties merges the properties file that root's
// kafka.properties_file names, if any, under root.
func mergeProperties(root *yaml.Node, read readProps) error {
	kafka := yamlnode.Lookup(root, "kafka")
	file := yamlnode.Lookup(kafka, "properties_file")
	if file == nil || file.Kind != yaml.ScalarNode || file.Value == "" {
		return nil
	}
	if read == nil {
		return FieldError("", "kafka.properties_file", file.Value, "is read when the configuration is loaded from a file (--config.file)")
	}
	data, dir, err := read(file.Value)
	if err != nil {
		return FieldError("", "kafka.properties_file", file.Value, err.Error())
	}
	entries, err := ParseProperties(data)
	if err != nil {
		return FieldError("", "kafka.properties_file", file.Value, err.Error())
	}
	tree, err := propertiesToYAML(entries, file.Value, func(p string) string { return resolvePath(dir, p) })
	if err != nil {
		return err
	}
	yamlChoosesStores(kafka, tree.kafka)
	yamlChoosesSecrets(kafka, tree.kafka)
	yamlnode.Merge(kafka, tree.kafka, true)
	probes := yamlnode.Lookup(root, "probes")
	if (probes == nil || probes.Kind != yaml.SequenceNode || len(probes.Content) == 0) && len(tree.producer.Content)+len(tree.consumer.Content) > 0 {
		key := tree.producer
		if len(key.Content) == 0 {
			key = tree.consumer
		}
		return FieldError("", "kafka.properties_file", file.Value, fmt.Sprintf("sets %s, a producer or consumer key, which applies to the probes of the configuration file, and it lists none", key.Content[0].Value))
	}
	if probes != nil && probes.Kind == yaml.SequenceNode {
		for _, p := range probes.Content {
			if p.Kind != yaml.MappingNode {
				continue
			}
			for _, b := range []struct {
				key  string
				from *yaml.Node
			}{{"producer", tree.producer}, {"consumer", tree.consumer}} {
				if len(b.from.Content) == 0 {
					continue
				}
				block := yamlnode.Lookup(p, b.key)
				if block == nil {
					block = yamlnode.Mapping()
					yamlnode.Put(p, b.key, block)
				}
				if block.Kind == yaml.MappingNode {
					yamlnode.Merge(block, b.from, true)
				}
			}
		}
	}
	return nil
}

// Load is the configuration's one entry point, for the start, every reload
// and --config.check: the file (none: the flags alone) decoded and
// validated with the flags over it (Effective), the resolve step that reads
// what it names (ResolveFile), then check, which builds every client the
// configuration implies without connecting (kclient.Check: config is read
// before any client exists, so the check is handed in). Errors name the
// file.
func Load(file string, o Overrides, check func(*Resolved) error) (*Resolved, error) {
	cfg, err := Effective(file, o)
	if err != nil {
		return nil, err
	}
	res, err := ResolveFile(cfg, file)
	if err != nil {
		return nil, err
	}
	if err := check(res); err != nil {
		if file != "" {
			err = fmt.Errorf("%s: %w", file, err)
		}
		return nil, err
	}
	return res, nil
}
