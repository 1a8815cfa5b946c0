package kafkaprops

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestEveryJavaPropertyClassified holds the table to the property names
// and types of the Java clients (testdata, from ProducerConfig.configDef()
// and ConsumerConfig.configDef() of kafka-clients 4.4.0): each exactly once
// per client, of the type Java gives it, and no row for a name Java does
// not have.
func TestEveryJavaPropertyClassified(t *testing.T) {
	data, err := os.ReadFile("testdata/kafka-clients-4.4.0.tsv")
	if err != nil {
		t.Fatal(err)
	}
	java := map[string]Type{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			t.Fatalf("testdata: %q is not client<TAB>name<TAB>type", line)
		}
		java[f[0]+" "+f[1]] = Type(f[2])
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
			typ, ok := java[k]
			if !ok {
				t.Errorf("%s: the Java %s has no such property", p.Name, c.Block())
			} else if p.Type != typ {
				t.Errorf("%s: type %s, the Java %s's is %s", p.Name, p.Type, c.Block(), typ)
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

// A property Kafka types PASSWORD is a secret by the table, under its own
// name and under a block's path, whatever its name says
// (sasl.oauthbearer.assertion.private.key.passphrase names no password).
func TestSecret(t *testing.T) {
	for key, want := range map[string]bool{
		"sasl.oauthbearer.assertion.private.key.passphrase":          true,
		"producer.sasl.oauthbearer.assertion.private.key.passphrase": true,
		"ssl.keystore.key":                            true,
		"consumer.ssl.truststore.certificates":        true,
		"sasl.jaas.config":                            true,
		"sasl.oauthbearer.assertion.private.key.file": false,
		"ssl.keystore.location":                       false,
		"xssl.key.password":                           false,
		"linger.ms":                                   false,
	} {
		if got := Secret(key); got != want {
			t.Errorf("Secret(%q) = %v, want %v", key, got, want)
		}
	}
}

// TestPlainRows holds every plain row to what config and kclient derive
// from it: a mapped property whose default and example are values of its
// type that its range accepts, the example other than the default (the
// read-back tests set it), and franz-go options named exactly when it
// builds them.
func TestPlainRows(t *testing.T) {
	n := 0
	for _, p := range Properties {
		pl := p.Plain
		if pl == nil {
			continue
		}
		n++
		if p.Class != Mapped {
			t.Errorf("%s: plain but %s", p.Name, p.Class)
		}
		if (pl.Build == nil) != (len(p.Options) == 0) {
			t.Errorf("%s: builds options: %v, names options %v", p.Name, pl.Build != nil, p.Options)
		}
		for what, v := range map[string]any{"default": pl.Default, "example": pl.Example} {
			if v == nil {
				if what == "example" {
					t.Errorf("%s: no example", p.Name)
				}
				continue
			}
			if fmt.Sprintf("%T", v) != fmt.Sprintf("%T", p.Type.GoValue()) {
				t.Errorf("%s: %s %v is a %T, a %s's value is a %T", p.Name, what, v, v, p.Type, p.Type.GoValue())
			}
			if problem := pl.Check(v); problem != "" {
				t.Errorf("%s: %s %v: %s", p.Name, what, v, problem)
			}
		}
		if pl.Example == pl.Default {
			t.Errorf("%s: the example is the default, %v: setting it proves nothing", p.Name, pl.Example)
		}
		if pl.Doc == "" && pl.Values == "" && p.ValuesDoc() == "" {
			t.Errorf("%s: no docs for the configuration reference", p.Name)
		}
	}
	if n == 0 {
		t.Fatal("no plain row")
	}
}

func TestPlainCheck(t *testing.T) {
	pl := Plain{Min: 100, Max: 900000, Why: "franz-go"}
	for _, tc := range []struct {
		v    any
		want string
	}{
		{int64(100), ""},
		{int64(900000), ""},
		{int64(99), "must be 100 … 900000 (franz-go)"},
		{int64(900001), "must be 100 … 900000 (franz-go)"},
		{true, ""},
	} {
		if got := pl.Check(tc.v); got != tc.want {
			t.Errorf("Check(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
	if got := (&Plain{Min: 1}).Check(int64(0)); got != "must be >= 1" {
		t.Errorf("Check(0) of ≥ 1 = %q", got)
	}
}
