package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/internal/kafkatest"
	"github.com/kafka-bench/kafka_bench_exporter/internal/promtest"
	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testenv"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

// startAgent runs the binary in host-agent mode and waits until it is
// ready; it returns its /metrics URL.
func startAgent(t *testing.T, args ...string) (*process, string) {
	t.Helper()
	addr := testenv.FreeAddr(t)
	p := startBinary(t, append([]string{"--web.listen-address=" + addr}, args...)...)
	probetest.Eventually(t, 30*time.Second, "the host agent to be ready", func() (bool, string) {
		p.alive(t)
		resp, err := http.Get("http://" + addr + "/-/ready")
		if err != nil {
			return false, err.Error()
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, resp.Status
	})
	return p, "http://" + addr + "/metrics"
}

// TestHostAgent: --no-probes, or probes: [] in the file, serves host
// metrics only: no embedded cluster, no probe, ready at once; SIGTERM
// exits 0.
func TestHostAgent(t *testing.T) {
	file := filepath.Join(t.TempDir(), "agent.yml")
	if err := os.WriteFile(file, []byte("probes: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string][]string{"--no-probes": {"--no-probes"}, "probes: []": {"--config.file=" + file}} {
		t.Run(name, func(t *testing.T) {
			p, url := startAgent(t, args...)
			f, err := scrape.Get(url)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := f["kafka_bench_host_cpu_seconds_total"]; !ok {
				t.Error("no kafka_bench_host_cpu_seconds_total in the host agent's scrape")
			}
			if mf := f["kafka_bench_probe_info"]; len(mf.GetMetric()) > 0 {
				t.Errorf("the host agent runs probes: %v", mf.GetMetric())
			}
			p.stop(t)
			if logs := p.logs.String(); strings.Contains(logs, "EMBEDDED") || !strings.Contains(logs, "host-agent mode") {
				t.Errorf("want a host-agent log line and no embedded cluster:\n%s", logs)
			}
		})
	}
}

// benchHost is one machine of the JSON output.
type benchHost struct {
	Name, Role, Source, Status, Error string
	CPU                               float64 `json:"cpu_percent"`
	CPUPeak                           float64 `json:"cpu_peak_percent"`
	Mem                               float64 `json:"memory_percent"`
	DiskBusy                          float64 `json:"disk_busy_percent"`
	NetIn                             float64 `json:"net_in_mb_per_sec"`
	NetOut                            float64 `json:"net_out_mb_per_sec"`
}

// TestBenchHostsRealBroker runs a bench against a real broker with two
// hosts besides its own: the real node_exporter and this exporter in
// host-agent mode behind TLS and basic auth (http_config), plus one URL
// nobody serves. Every reachable row has
// plausible values; the dead one is unreachable and the bench exits 0,
// or 1 with --hosts-required. The node_exporter's and the dead host's URLs
// carry a password, which no output, result or log line shows.
func TestBenchHostsRealBroker(t *testing.T) {
	kafkatest.Integration(t)
	node := promtest.StartNodeExporter(t)
	// The agent behind TLS (a private CA) and basic auth: the bench
	// reaches it through the host's http_config.
	webConfig, certs, user, agentPassword := writeWebConfig(t)
	agentAddr := testenv.FreeAddr(t)
	agent := startBinary(t, "--web.listen-address="+agentAddr, "--web.config.file="+webConfig, "--no-probes")
	getAgent := httpsClient(t, certs, agentAddr)
	probetest.Eventually(t, 30*time.Second, "the host agent to be ready", func() (bool, string) {
		agent.alive(t)
		code, _, err := getAgent(http.MethodGet, "/-/ready", user, agentPassword)
		return err == nil && code == http.StatusOK, fmt.Sprint(code, err)
	})
	agentURL := "https://" + agentAddr + "/metrics"
	cluster := kafkatest.Start(t, kafkatest.Options{Nodes: 1})
	const password = "hunter2"
	deadURL := "http://u:" + password + "@" + testenv.FreeAddr(t) + "/metrics"
	nodeURL := strings.Replace(node.URL, "://", "://u:"+password+"@", 1)

	dir := t.TempDir()
	passwordFile := filepath.Join(dir, "agent-password")
	if err := os.WriteFile(passwordFile, []byte(agentPassword+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	benchFile := func(bound string) string {
		f := filepath.Join(dir, strings.Fields(bound)[0]+".yml")
		text := fmt.Sprintf(`kafka: {brokers: [%s]}
%s
rate: 2000
defaults: {record_size: 1024, create_topic: {partitions: 3}}
hosts:
  - {name: kafka1, url: %q, role: broker}
  - {name: agent, url: %q, role: broker, http_config: {tls_config: {ca_file: %q}, basic_auth: {username: %s, password_file: %q}}}
  - {name: kafka3, url: %q, role: broker}
`, cluster.Bootstrap()[0], bound, nodeURL, agentURL, certs.CAFile, user, passwordFile, deadURL)
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}

	start := time.Now()
	out := filepath.Join(dir, "results.json")
	code, stdout, stderr := runCLI(t, "bench", "--bench.file", benchFile("duration: 7s"), "--output", out, "--format", "json")
	t.Logf("bench with hosts: %s", time.Since(start).Round(time.Second))
	if code != exitOK {
		t.Fatalf("exit code %d; stderr:\n%s\nstdout:\n%s", code, stderr, stdout)
	}
	t.Logf("stdout:\n%s", stdout)
	for _, want := range []string{"| kafka1 | broker | 127.0.0.1:", "| agent | broker |", "| bench | bench | local |",
		"| kafka3 | broker | " + strings.TrimSuffix(strings.TrimPrefix(deadURL, "http://u:"+password+"@"), "/metrics") + " |", "| unreachable |",
		"unreachable kafka3 (http://u:<secret>@"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the per-machine table lacks %q", want)
		}
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for what, text := range map[string]string{"stdout": stdout, "stderr (the log)": stderr, "the JSON result": string(b)} {
		if strings.Contains(text, password) || strings.Contains(text, agentPassword) {
			t.Errorf("%s shows a host's password:\n%s", what, text)
		}
	}
	var res []struct {
		Status string
		Hosts  []benchHost
	}
	if err := json.Unmarshal(b, &res); err != nil || len(res) != 1 {
		t.Fatalf("JSON output: %v\n%s", err, b)
	}
	hosts := map[string]benchHost{}
	for _, h := range res[0].Hosts {
		hosts[h.Name] = h
	}
	for name, source := range map[string]string{"bench": "kafka_bench_exporter", "kafka1": "node_exporter", "agent": "kafka_bench_exporter"} {
		h := hosts[name]
		if h.Status != "ok" || h.Source != source {
			t.Errorf("%s: status %q source %q (%s), want ok from %s", name, h.Status, h.Source, h.Error, source)
		}
		// One machine under load: busy, memory in use, loopback traffic.
		if h.CPU <= 0 || h.CPU > 100 || h.CPUPeak < h.CPU || h.CPUPeak > 100 || h.Mem <= 0 || h.Mem >= 100 ||
			h.DiskBusy < 0 || h.DiskBusy > 100 || h.NetIn <= 0 || h.NetOut <= 0 {
			t.Errorf("%s: implausible %+v", name, h)
		}
	}
	if h := hosts["kafka3"]; h.Status != "unreachable" || h.Error == "" {
		t.Errorf("kafka3: %+v, want unreachable with the reason", h)
	}

	code, stdout, stderr = runCLI(t, "bench", "--bench.file", benchFile("num_records: 2000"), "--hosts-required")
	if code != exitFailed || !strings.Contains(stderr, `host "kafka3" unreachable`) || strings.Contains(stderr+stdout, password) {
		t.Errorf("--hosts-required: exit %d, want %d and the unreachable host named; stderr:\n%s\nstdout:\n%s", code, exitFailed, stderr, stdout)
	}
}
