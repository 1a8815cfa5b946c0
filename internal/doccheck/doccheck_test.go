package doccheck

import (
	"reflect"
	"testing"
)

const sample = "# Title\n\n## Flags\n\nSee `--a`.\n\n```sh\n# not a heading\n`--fenced`\n```\n\n### Sub\n\n## Sub\n\n## Next\n"

func TestParse(t *testing.T) {
	d := Parse("S.md", sample)
	var titles []string
	for _, h := range d.Headings {
		titles = append(titles, h.Title)
	}
	if want := []string{"Title", "Flags", "Sub", "Sub", "Next"}; !reflect.DeepEqual(titles, want) {
		t.Errorf("headings %q, want %q (none from fenced code)", titles, want)
	}
	text, line, err := d.Section("Flags")
	if err != nil || line != 3 {
		t.Fatalf("Section: line %d, %v", line, err)
	}
	if got := Code(text); !reflect.DeepEqual(got, []string{"--a"}) {
		t.Errorf("code of the section's prose %q, want only --a (fenced code left out)", got)
	}
	if _, _, err := d.Section("Nope"); err == nil {
		t.Error("a missing section is not an error")
	}
	if got, want := d.Anchors(), map[string]bool{"title": true, "flags": true, "sub": true, "sub-1": true, "next": true}; !reflect.DeepEqual(got, want) {
		t.Errorf("Anchors = %v, want %v", got, want)
	}
}

func TestAnchor(t *testing.T) {
	for title, want := range map[string]string{"KafkaBenchProbeDown": "kafkabenchprobedown", "Sizing and scaling out": "sizing-and-scaling-out", "`bench merge` (N workers)": "bench-merge-n-workers"} {
		if got := Anchor(title); got != want {
			t.Errorf("Anchor(%q) = %q, want %q", title, got, want)
		}
	}
}
