package kafkaprops

import (
	"bufio"
	"bytes"
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
