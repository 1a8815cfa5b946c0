package readme

import (
	"reflect"
	"testing"
)

const sample = "# Title\n\n## Flags\n\n" +
	"| flag | default |\n|---|---|\n| `--a` | `x\\|y` |\n| `--b`, `--c` | 1, 2 |\n\n" +
	"```sh\n# not a heading\n| not | a table |\n```\n\n### Sub\n\n| key | default |\n|:--|--:|\n| `k` | |\n\n## Next\n"

func TestParse(t *testing.T) {
	d := Parse("S.md", sample)
	var titles []string
	for _, h := range d.Headings {
		titles = append(titles, h.Title)
	}
	if want := []string{"Title", "Flags", "Sub", "Next"}; !reflect.DeepEqual(titles, want) {
		t.Errorf("headings %q, want %q (none from fenced code)", titles, want)
	}
	s, err := d.Section("Flags")
	if err != nil {
		t.Fatal(err)
	}
	tables := d.Tables(s)
	if len(tables) != 2 {
		t.Fatalf("%d tables in Flags (with its sub-section), want 2", len(tables))
	}
	if got := tables[0].Rows[0].Cells; !reflect.DeepEqual(got, []string{"`--a`", "`x|y`"}) {
		t.Errorf("escaped pipe: cells %q", got)
	}
	if tables[0].Rows[1].Line != 8 || tables[1].Header[0] != "key" {
		t.Errorf("row line %d, second table %q", tables[0].Rows[1].Line, tables[1].Header)
	}
	if _, err := d.Table("Flags", "nope"); err == nil {
		t.Error("a missing table is not an error")
	}
	if _, err := d.Section("Nope"); err == nil {
		t.Error("a missing section is not an error")
	}
}

func TestAnchorCode(t *testing.T) {
	if got := Anchor("KafkaBenchProbeDown"); got != "kafkabenchprobedown" {
		t.Errorf("Anchor = %q", got)
	}
	if got := Anchor("Sizing and scaling out"); got != "sizing-and-scaling-out" {
		t.Errorf("Anchor = %q", got)
	}
	if got := Code("`a` and `b{c}`"); !reflect.DeepEqual(got, []string{"a", "b{c}"}) {
		t.Errorf("Code = %q", got)
	}
}

func TestExprLabels(t *testing.T) {
	expr := `sum by (job, probe) (rate(m_total{reason=~"a|b"}[5m])) > on () group_left () x:y:z and {{ $labels.instance }}`
	if got := ExprLabels(expr); !reflect.DeepEqual(got, []string{"instance", "job", "probe", "reason"}) {
		t.Errorf("ExprLabels = %q", got)
	}
	if got := ExprMetrics("sum(rate(kafka_bench_a_total[5m])) / kafka_bench:b:rate5m"); !reflect.DeepEqual(got, []string{"kafka_bench:b:rate5m", "kafka_bench_a_total"}) {
		t.Errorf("ExprMetrics = %q", got)
	}
}
