package kafkaprops

import (
	"bufio"
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestEveryJavaPropertyClassified holds the table to the property names of
// the Java clients (testdata, from ProducerConfig.configDef() and
// ConsumerConfig.configDef() of kafka-clients 4.4.0): each exactly once per
// client, and no row for a name Java does not have.
func TestEveryJavaPropertyClassified(t *testing.T) {
	data, err := os.ReadFile("testdata/kafka-clients-4.4.0.tsv")
	if err != nil {
		t.Fatal(err)
	}
	java := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		client, name, _ := strings.Cut(line, "\t")
		java[client+" "+name] = true
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	rows := map[string]int{}
	for _, p := range Properties {
		for _, c := range []Clients{Producer, Consumer} {
			if p.In&c == 0 {
				continue
			}
			k := c.Block() + " " + p.Name
			rows[k]++
			if !java[k] {
				t.Errorf("%s: the Java %s has no such property", p.Name, c.Block())
			}
		}
		if p.Class != Mapped && p.Note == "" {
			t.Errorf("%s: %s without a reason", p.Name, p.Class)
		}
		if p.Class != Mapped && len(p.Options) > 0 {
			t.Errorf("%s: %s but names franz-go options", p.Name, p.Class)
		}
	}
	for k := range java {
		switch rows[k] {
		case 0:
			t.Errorf("%s: not classified", k)
		case 1:
		default:
			t.Errorf("%s: classified %d times", k, rows[k])
		}
	}
}

func TestLookup(t *testing.T) {
	for _, tc := range []struct {
		block, name string
		want        Class
		found       bool
	}{
		{"producer", "partitioner.class", NotApplicable, true},
		{"consumer", "partitioner.class", "", false},
		{"consumer", "client.rack", Mapped, true},
		{"producer", "client.rack", NotApplicable, true},
		{"producer", "max.block.ms", Refused, true},
		{"consumer", "linger.ms", "", false},
	} {
		p, ok := Lookup(tc.block, tc.name)
		if ok != tc.found || p.Class != tc.want {
			t.Errorf("Lookup(%s, %s) = %q, %v; want %q, %v", tc.block, tc.name, p.Class, ok, tc.want, tc.found)
		}
	}
}
