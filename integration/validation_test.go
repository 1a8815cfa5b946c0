package integration

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/internal/exportertest"
	"github.com/kafka-bench/kafka_bench_exporter/kclient"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

// A file with linger.ms: 70000, which franz-go refuses (at most 1 min), is
// refused by --config.check's load and by a reload while a probe runs on a
// real broker: the probe keeps producing and consuming, and
// kafka_bench_config_last_reload_successful drops to 0.
func TestLingerAboveMinuteRefusedByCheckAndReload(t *testing.T) {
	parallel(t) // waits more than it computes; see waiting in main_test.go
	c := cluster(t, 1)
	ensureRunning(t, c)
	const probe = "validated"
	good := fmt.Sprintf(`
kafka:
  brokers: [%s]
probes:
  - name: validated
    rate: 100
    lag_interval: 1s
    create_topic: {partitions: 1, replication_factor: 1}
`, strings.Join(c.Bootstrap(), ", "))
	bad := good + "    producer: {linger.ms: 70000, delivery.timeout.ms: 200000}\n"
	dir := t.TempDir()
	badFile := filepath.Join(dir, "bad.yml")
	if err := os.WriteFile(badFile, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	const refusal = `probe "validated": producer.linger.ms = 70000: franz-go refuses it: linger 1m10s is larger than allowed 1m0s`

	// --config.check loads with config.Load, as start and reload do.
	if _, err := config.Effective(badFile, config.Overrides{}); err != nil {
		t.Fatalf("config's own checks refuse the file already: %v", err)
	}
	if _, err := config.Load(badFile, config.Overrides{}, kclient.Check); err == nil || err.Error() != badFile+": "+refusal {
		t.Errorf("check: err = %v, want %s: %s", err, badFile, refusal)
	}

	x := exportertest.Start(t, good, c.Bootstrap())
	x.WaitReady(t, 60*time.Second)
	running := x.Probe(probe)
	for _, load := range []func() (*config.Resolved, error){
		func() (*config.Resolved, error) { return config.Load(badFile, config.Overrides{}, kclient.Check) },
		// A loader that skips the client check: Reload checks by itself.
		func() (*config.Resolved, error) {
			cfg, err := config.Effective(badFile, config.Overrides{})
			if err != nil {
				return nil, err
			}
			return config.ResolveFile(cfg, badFile)
		},
	} {
		err := x.Reload(context.Background(), load)
		if err == nil || !strings.HasSuffix(err.Error(), refusal) {
			t.Errorf("reload: err = %v, want %s", err, refusal)
		}
		f := x.Scrape(t)
		if v, _ := f.Value("kafka_bench_config_last_reload_successful"); v != 0 {
			t.Errorf("after the refused reload: last_reload_successful = %v, want 0", v)
		}
		if x.Probe(probe) != running {
			t.Error("the refused reload restarted the probe")
		}
		// The old probe keeps flowing.
		p0, c0 := value(t, f, "kafka_bench_produced_records_total", probe), value(t, f, "kafka_bench_consumed_records_total", probe)
		probetest.Eventually(t, time.Minute, "records produced and consumed after the refused reload", func() (bool, string) {
			g := x.Scrape(t)
			p, c := value(t, g, "kafka_bench_produced_records_total", probe), value(t, g, "kafka_bench_consumed_records_total", probe)
			return p >= p0+50 && c >= c0+50, fmt.Sprintf("produced %v -> %v, consumed %v -> %v", p0, p, c0, c)
		})
	}
	if !running.Ready() {
		t.Error("the probe is not up after the refused reloads")
	}
}
