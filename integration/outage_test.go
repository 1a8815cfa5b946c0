package integration

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/internal/kafkatest"
	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testbin"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testenv"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

// startBinary starts the real exporter binary (RSS is only
// meaningful for a process of its own) with a config file.
func startBinary(t *testing.T, configYAML string) (url string, proc *os.Process, logs *bytes.Buffer) {
	t.Helper()
	dir := t.TempDir()
	bin := testbin.Path(t)
	cfg := filepath.Join(dir, "config.yml")
	if err := os.WriteFile(cfg, []byte(configYAML), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := testenv.FreeAddr(t)
	logs = &bytes.Buffer{}
	cmd := exec.Command(bin, "--config.file="+cfg, "--web.listen-address="+addr)
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := testenv.StartTied(cmd); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
		}
		if t.Failed() {
			t.Logf("exporter log:\n%s", logs.String())
		}
	})
	return "http://" + addr, cmd.Process, logs
}

// Test 4: every broker stopped for 60 s. /metrics keeps answering within
// 1 s, probe_up is 0 meanwhile, memory stays below buffer.memory + 64 MiB,
// and the probe recovers within 30 s of the restart, in the same process.
// The broker is the test's own: the outage is not the other tests'. It runs
// in TestRollingRestarts, after the upgrade, beside the static-setting
// experiment's rolling restarts: a stopped broker computes nothing.
func testAllBrokersDownForAMinute(t *testing.T) {
	kafkatest.Integration(t)
	c := kafkatest.Start(t, kafkatest.Options{})
	const probe, bufferMemory = "outage", 32 << 20
	url, proc, _ := startBinary(t, fmt.Sprintf(`
kafka:
  brokers: [%s]
probes:
  - name: outage
    rate: 1000
    record_size: 1024
    lag_interval: 1s
    create_topic: {partitions: 3, replication_factor: 1}
    producer: {acks: "1", buffer.memory: %d}
`, c.Bootstrap()[0], bufferMemory))
	probetest.Eventually(t, 60*time.Second, "exporter ready", func() (bool, string) {
		resp, err := http.Get(url + "/-/ready")
		if err != nil {
			return false, err.Error()
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, resp.Status
	})
	time.Sleep(3 * time.Second)

	if err := c.StopAll(); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	client := http.Client{Timeout: time.Second}
	var failedScrapes int
	var maxRSS, upDuring float64 = 0, 1
	for time.Since(stopped) < 60*time.Second {
		tick := time.Now()
		f, err := scrapeWith(&client, url+"/metrics")
		if err != nil {
			failedScrapes++
			t.Logf("scrape %.0fs into the outage failed: %v", time.Since(stopped).Seconds(), err)
		} else {
			if v, _ := f.Value("process_resident_memory_bytes"); v > maxRSS {
				maxRSS = v
			}
			if time.Since(stopped) > 10*time.Second {
				upDuring = min(upDuring, value(t, f, "kafka_bench_probe_up", probe))
			}
		}
		time.Sleep(time.Second - time.Since(tick))
	}
	if failedScrapes > 0 {
		t.Errorf("%d scrapes of /metrics failed or took over 1 s during the outage", failedScrapes)
	}
	if upDuring != 0 {
		t.Error("kafka_bench_probe_up never went to 0 while every broker was down")
	}
	limit := float64(bufferMemory + 64<<20)
	t.Logf("max RSS during the outage: %.1f MiB (limit %.0f MiB)", maxRSS/(1<<20), limit/(1<<20))
	if maxRSS == 0 || maxRSS > limit {
		t.Errorf("RSS %.1f MiB, want below buffer.memory + 64 MiB = %.0f MiB", maxRSS/(1<<20), limit/(1<<20))
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.StartAll(ctx); err != nil {
		t.Fatal(err)
	}
	restarted := time.Now()
	probetest.Eventually(t, 30*time.Second, "probe_up back to 1 within 30 s of the restart", func() (bool, string) {
		f, err := scrapeWith(&client, url+"/metrics")
		if err != nil {
			return false, err.Error()
		}
		up := value(t, f, "kafka_bench_probe_up", probe)
		return up == 1, fmt.Sprintf("probe_up=%v", up)
	})
	t.Logf("recovered %.1fs after the brokers restarted", time.Since(restarted).Seconds())
	if err := proc.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("the exporter process is gone: %v", err)
	}
}

func scrapeWith(client *http.Client, url string) (scrape.Families, error) {
	resp, err := client.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s", resp.Status)
	}
	return scrape.Parse(resp.Body)
}
