package yamlnode

import (
	"testing"

	"go.yaml.in/yaml/v3"
)

func parse(t *testing.T, s string) *yaml.Node {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(s), &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Content[0]
}

func render(t *testing.T, n *yaml.Node) string {
	t.Helper()
	out, err := yaml.Marshal(n)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func TestMerge(t *testing.T) {
	const dst, src = "a: {x: 1, y: 2}\nb: 3\n", "a: {y: 20, z: 30}\nb: 4\nc: 5\n"
	for keep, want := range map[bool]string{
		false: "a: {x: 1, y: 20, z: 30}\nb: 4\nc: 5\n",
		true:  "a: {x: 1, y: 2, z: 30}\nb: 3\nc: 5\n",
	} {
		d, s := parse(t, dst), parse(t, src)
		Merge(d, s, keep)
		if got := render(t, d); got != render(t, parse(t, want)) {
			t.Errorf("keepDst=%v: got\n%s\nwant\n%s", keep, got, want)
		}
		s.Content[1].Content[1].Value = "changed" // the copy shares nothing
		if Lookup(Lookup(d, "a"), "y").Value == "changed" {
			t.Errorf("keepDst=%v: the merge shares src's nodes", keep)
		}
	}
}

func TestSetPath(t *testing.T) {
	m := parse(t, "a: 1\n")
	SetPath(m, []string{"b", "c", "d"}, Str("007"))
	SetPath(m, []string{"a"}, Str("2"))
	if got, want := render(t, m), "a: \"2\"\nb:\n    c:\n        d: \"007\"\n"; got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if Lookup(Str("x"), "a") != nil || Lookup(nil, "a") != nil {
		t.Error("Lookup of a scalar or nil found a key")
	}
}
