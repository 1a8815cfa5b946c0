package config

import (
	"reflect"
	"strconv"
	"strings"

	"github.com/prometheus/common/model"
	"go.yaml.in/yaml/v3"
)

// The docs of each key are tags of its field, read by the schema walk:
// default (replacing the printed default where that is a rule, such as
// kafka-bench-<name>, or where empty means something), values (the values
// it accepts) and doc (what it does). In them {x} is code, `x` in the
// docs. docs/reference/config.md is generated from them, and a key without
// any fails TestKeyDocsCoverEveryKey.

// KeyDoc is what the docs say about a key beyond its type and default.
type KeyDoc struct {
	// Default replaces the printed default where that is a rule
	// (kafka-bench-<name>) or where empty means something.
	Default string
	Values  string // accepted range or values
	Doc     string // what the key does
}

// KeyRef is one row of the configuration reference.
type KeyRef struct {
	Key
	KeyDoc
	Documented bool // its field has doc tags
}

// Reference lists the keys of the configuration file that the reference
// documents: every value, and the blocks whose presence means something
// (lists and optional blocks). Default is what --config.check prints for a
// file with one probe (named <name>), a capacity block and a replica block,
// secrets as <secret>, unless the key's default tag gives a rule instead.
func Reference() ([]KeyRef, error) {
	c := Config{}
	c.SetDefaults()
	p := NewProbe("<name>")
	p.Capacity = &Capacity{}
	p.Capacity.SetDefaults()
	p.Replica = &Replica{}
	p.Replica.SetDefaults()
	p.Consumer.Churn = &Churn{}
	p.Consumer.Churn.SetDefaults()
	p.CatchUp = []CatchUp{{From: "1h"}}
	p.CatchUp[0].SetDefaults()
	p.Resolve()
	c.Probes = []Probe{p}
	out, err := c.Marshal()
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(out, &doc); err != nil {
		return nil, err
	}
	var refs []KeyRef
	as := map[string]reflect.StructField{} // blocks documented as another: path -> field
	Walk(reflect.TypeFor[Config](), func(k Key) bool {
		if k.Field.Tag.Get("docas") != "" {
			as[k.Path] = k.Field
		}
		if k.Block && !k.List && k.Field.Type.Kind() != reflect.Pointer {
			return true
		}
		d, ok := docsOf(k, as)
		r := KeyRef{Key: k, KeyDoc: d, Documented: ok}
		if r.Default == "" {
			r.Default = shownDefault(lookup(doc.Content[0], k.Parts))
		}
		refs = append(refs, r)
		return true
	})
	return refs, nil
}

// lookup finds a key's value in a printed configuration; a list stands for
// its first item.
func lookup(n *yaml.Node, parts []string) *yaml.Node {
	for _, part := range parts {
		if n != nil && n.Kind == yaml.SequenceNode {
			if len(n.Content) == 0 {
				return nil
			}
			n = n.Content[0]
		}
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == part {
				next = n.Content[i+1]
			}
		}
		n = next
	}
	return n
}

// shownDefault writes a printed value as code; nothing for unset.
func shownDefault(n *yaml.Node) string {
	switch {
	case n == nil || n.Tag == "!!null":
		return ""
	case n.Kind == yaml.SequenceNode && len(n.Content) > 0 && n.Content[0].Kind == yaml.MappingNode:
		return ""
	case n.Kind == yaml.SequenceNode:
		items := make([]string, len(n.Content))
		for i, it := range n.Content {
			items[i] = it.Value
		}
		return "`[" + strings.Join(items, ", ") + "]`"
	case n.Kind == yaml.MappingNode && len(n.Content) == 0:
		return "`{}`"
	case n.Kind == yaml.MappingNode:
		return ""
	case n.Value == "":
		return ""
	}
	if q := strconv.Quote(n.Value); q[1:len(q)-1] != n.Value {
		return "`" + q + "`" // a delimiter such as "\n"
	}
	return "`" + n.Value + "`"
}

// TypeName is a key's type in the words of the docs.
func (k Key) TypeName() string {
	t := k.Type
	switch {
	case k.Secret():
		return "secret"
	case t == reflect.TypeFor[model.Duration]():
		return "duration"
	case k.List:
		return "list of blocks"
	case k.Block:
		return "block"
	}
	switch t.Kind() {
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.String:
		return "string"
	case reflect.Slice:
		return "list of " + Key{Type: t.Elem()}.TypeName() + "s"
	case reflect.Map:
		return "mapping of names to " + Key{Type: t.Elem()}.TypeName() + "s"
	}
	return t.String()
}

// docsOf reads a key's doc tags; a key in a block documented as another
// (docas) has the other's docs, said of this block, unless the block's
// field gives its own (<key>.default, <key>.values, <key>.doc).
func docsOf(k Key, as map[string]reflect.StructField) (KeyDoc, bool) {
	if k.Row != nil {
		pl := k.Row.Plain
		return KeyDoc{Default: codeSpans(pl.DefaultDoc), Values: codeSpans(k.Row.ValuesDoc()), Doc: codeSpans(pl.Doc)}, true
	}
	for prefix, f := range as {
		rest, ok := strings.CutPrefix(k.Path, prefix+".")
		if !ok {
			continue
		}
		if d, ok := tagDocs(f.Tag, rest+"."); ok {
			return d, true
		}
		d, ok := tagDocs(k.Field.Tag, "")
		other, self := f.Tag.Get("docas")+".", prefix[strings.LastIndex(prefix, "].")+2:]+"."
		d.Values = strings.ReplaceAll(d.Values, "`"+other, "`"+self)
		doc := "to the target cluster, as `" + other + rest + "`"
		if d.Doc != "" {
			doc += ": " + strings.ReplaceAll(d.Doc, "`"+other, "`"+self)
		}
		d.Doc = doc
		return d, ok
	}
	return tagDocs(k.Field.Tag, "")
}

// tagDocs are the doc tags named prefix+default, prefix+values and
// prefix+doc; ok when any is set.
func tagDocs(tag reflect.StructTag, prefix string) (KeyDoc, bool) {
	var d KeyDoc
	var set bool
	for name, dst := range map[string]*string{"default": &d.Default, "values": &d.Values, "doc": &d.Doc} {
		v, ok := tag.Lookup(prefix + name)
		*dst = codeSpans(v)
		set = set || ok
	}
	return d, set
}

// codeSpans writes a tag's {x} as `x`.
func codeSpans(s string) string {
	return strings.NewReplacer("{", "`", "}", "`").Replace(s)
}
