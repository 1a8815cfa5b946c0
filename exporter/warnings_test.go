package exporter_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/exporter"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testenv"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

// The risky settings of every kafka section are logged, each once, at
// start: the kafka block's without a probe, a replica block's with its
// probe's name and its own keys. A reload that changes no section logs
// none again.
func TestWarningsOfEveryKafkaSection(t *testing.T) {
	logger, logs := probetest.CaptureLogger()
	file := fmt.Sprintf(`kafka:
  brokers: [%[1]s]
  sasl: {mechanism: PLAIN, username: u, password: pw}
probes:
  - name: near
    replica: {kafka: {brokers: [%[2]s], tls: {enabled: true, insecure_skip_verify: true}}}
  - name: far
    replica: {kafka: {brokers: [%[2]s], sasl: {mechanism: PLAIN, username: u, password: pw}}}
`, testenv.FreeAddr(t), testenv.FreeAddr(t)) // refused: no traffic, only the start
	e := exporter.New(prometheus.NewRegistry(), logger)
	ctx := t.Context()
	defer e.Stop()
	for range 2 { // start, then a reload of the same file
		if err := e.Reload(ctx, func() (*config.Resolved, error) { return resolve(config.Parse([]byte(file))) }); err != nil {
			t.Fatal(err)
		}
	}
	warnings := map[string]int{}
	for l := range strings.SplitSeq(logs.String(), "\n") {
		if strings.Contains(l, "level=WARN") {
			warnings[l]++
		}
	}
	for _, want := range []struct{ msg, probe string }{
		{"kafka.sasl.mechanism PLAIN without kafka.tls.enabled sends the password in clear text", ""},
		{"replica.kafka.tls.insecure_skip_verify is true: broker certificates are NOT verified", "near"},
		{"replica.kafka.sasl.mechanism PLAIN without replica.kafka.tls.enabled sends the password in clear text", "far"},
	} {
		n := 0
		for l, c := range warnings {
			// The kafka block's message is also the end of a replica's.
			if strings.Contains(l, `msg="`+want.msg) && (want.probe == "") == !strings.Contains(l, "probe=") {
				n += c
				if want.probe != "" && !strings.Contains(l, "probe="+want.probe) {
					t.Errorf("warning without its probe %q: %s", want.probe, l)
				}
			}
		}
		if n != 1 {
			t.Errorf("%d WARN lines %q (probe %q), want 1; warnings:\n%v", n, want.msg, want.probe, warnings)
		}
	}
}
