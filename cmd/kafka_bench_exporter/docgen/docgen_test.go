package docgen

import (
	"strings"
	"testing"

	"github.com/alecthomas/kingpin/v2"
	dto "github.com/prometheus/client_model/go"

	"github.com/kafka-bench/kafka_bench_exporter/config"
)

// Every visible flag of every command, nested ones too, with its env var
// and default; hidden flags and --help left out; a default of a flag named
// like a secret shown as <secret>.
func TestFlags(t *testing.T) {
	app := kingpin.New("prog", "What prog does.")
	app.Flag("top.level", "A flag of every command.").Default("x").String()
	app.Flag("internal", "Hidden.").Hidden().String()
	cmd := app.Command("work", "Do work.").Default()
	cmd.Flag("fast", "Go fast.").Bool()
	cmd.Flag("sasl.password", "A password.").Envar("PROG_PASSWORD").Default("hunter2").String()
	sub := cmd.Command("more", "Nested.")
	sub.Flag("depth", "How deep; a | b.").Default("2").Int()
	sub.Arg("FILE", "A file.").String()
	quiet := cmd.Command("quiet", "Only a hidden argument.")
	quiet.Arg("QUIETARG", "Hidden.").Hidden().String()
	got := string(Flags(app.Model()))
	for _, want := range []string{
		"| `--top.level` |  | `x` | A flag of every command. |",
		"## `prog work`\n\nDo work. The default command.",
		"| `--[no-]fast` |  | `false` | Go fast. |",
		"| `--sasl.password` | `PROG_PASSWORD` | `<secret>` | A password. |",
		"## `prog work more`",
		"| `--depth` |  | `2` | How deep; a \\| b. |",
		"| `FILE` |  |  | A file. |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("flags page lacks %q:\n%s", want, got)
		}
	}
	for _, not := range []string{"internal", "hunter2", "--help", "QUIETARG"} {
		if strings.Contains(got, not) {
			t.Errorf("flags page shows %q:\n%s", not, got)
		}
	}
	// Arguments are listed once per command that shows one: not for the
	// command whose one argument is hidden.
	if n := strings.Count(got, "Arguments:"); n != 1 {
		t.Errorf("flags page lists arguments %d times, want once (prog work more):\n%s", n, got)
	}
}

func TestConfigEscapesCells(t *testing.T) {
	refs, err := config.Reference()
	if err != nil {
		t.Fatal(err)
	}
	got := string(Config(refs))
	if want := "| `host.interfaces` | string | `^(eth\\|en\\|lo)` | regex |"; !strings.Contains(got, want) {
		t.Errorf("config page lacks %q:\n%s", want, got)
	}
	if rows := strings.Count(got, "\n| `"); rows != len(refs) {
		t.Errorf("%d key rows for %d keys", rows, len(refs))
	}
}

// A gathered event counter is not a row (whether a run had the event is
// luck); the contract's event counters are named apart instead.
func TestMetrics(t *testing.T) {
	counter := dto.MetricType_COUNTER
	fam := func(name, help string, labels ...string) *dto.MetricFamily {
		m := &dto.Metric{}
		for _, l := range labels {
			m.Label = append(m.Label, &dto.LabelPair{Name: new(l), Value: new("v")})
		}
		return &dto.MetricFamily{Name: new(name), Help: new(help), Type: &counter, Metric: []*dto.Metric{m}}
	}
	got := string(Metrics([]*dto.MetricFamily{
		fam("kafka_bench_produced_records_total", "Records acknowledged.", "probe"),
		fam("kafka_bench_client_disconnects_total", "Disconnects.", "node_id"),
		fam("kafka_bench_b_total", "Two\nlines.", "z", "a"),
	}, []string{"kafka_bench_produced_records_total", "kafka_bench_client_disconnects_total", "kafka_bench_client_read_errors_total"},
		[]string{"num.io.threads", "num.partitions"}))
	for _, want := range []string{
		"| `kafka_bench_b_total` | counter | `a`, `z` | Two lines. |\n| `kafka_bench_produced_records_total` | counter | `probe` | Records acknowledged. |\n",
		"from the first such event on (a healthy run may have none): `kafka_bench_client_disconnects_total`, `kafka_bench_client_read_errors_total`.",
		"## Numeric broker settings\n\n`kafka_bench_broker_config_value{broker,name}` exports these 2 settings, so at most brokers × 2 series: `num.io.threads`, `num.partitions`.\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("metrics page lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "| `kafka_bench_client_disconnects_total`") {
		t.Errorf("an event counter is a row:\n%s", got)
	}
}
