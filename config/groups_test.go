package config

import "testing"

func TestGroupsDefaultsOn(t *testing.T) {
	var c Config
	c.SetDefaults()
	g := c.Groups
	if !g.Enabled || g.Granularity != GranularityTopic || g.MaxSeries != DefaultGroupsMaxSeries || g.Validate() != nil {
		t.Fatalf("defaults %+v", g)
	}
}

func TestNameFilter(t *testing.T) {
	f := NewNameFilter([]string{"orders", "pay-.*"}, []string{"pay-test"})
	for name, want := range map[string]bool{
		"orders": true, "orders-2": false, // anchored: the whole name
		"pay-eu": true, "pay-test": false, // denied even when allowed
		"xorders": false,
	} {
		if got := f.Match(name); got != want {
			t.Errorf("Match(%q) = %v, want %v", name, got, want)
		}
	}
	if len(f.Literal) != 1 || f.Literal[0] != "orders" {
		t.Errorf("Literal = %v, want [orders]", f.Literal)
	}
	if all := NewNameFilter(nil, []string{"__.*"}); !all.Match("any") || all.Match("__x") {
		t.Error("an empty allow list allows every name not denied")
	}
}
