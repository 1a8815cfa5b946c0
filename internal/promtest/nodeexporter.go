package promtest

import (
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/internal/testenv"
)

// NodeExporterBinary is the command of Debian's prometheus-node-exporter
// package (scripts/test.sh installs it).
const NodeExporterBinary = "prometheus-node-exporter"

// NodeExporter is a running Prometheus node_exporter.
type NodeExporter struct {
	Addr string // host:port
	URL  string // its /metrics
}

// StartNodeExporter runs the real node_exporter on a free loopback port with
// only the collectors the bench and the dashboards read (cpu, meminfo,
// diskstats, netdev, with lo), and waits until it serves; t.Cleanup kills it. Without
// the binary the test skips, or fails when testenv.Strict.
func StartNodeExporter(t testing.TB) *NodeExporter {
	t.Helper()
	bin := testenv.Tool(t, NodeExporterBinary)
	port, err := testenv.LoopbackPort()
	if err != nil {
		t.Fatal(err)
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	logFile := filepath.Join(t.TempDir(), "node_exporter.log")
	logf, err := os.Create(logFile)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = logf.Close() }() // the child writes through its own descriptor
	// Debian's build leaves out lo by default; the tests' traffic is all on
	// loopback.
	cmd := exec.Command(bin, "--web.listen-address="+addr, "--collector.disable-defaults",
		"--collector.cpu", "--collector.meminfo", "--collector.diskstats", "--collector.netdev",
		"--collector.netdev.device-exclude=^$")
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = sysProcAttr()
	if err := testenv.StartTied(cmd); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = cmd.Wait()
	}()
	t.Cleanup(func() {
		kill(cmd.Process)
		<-done
	})
	n := &NodeExporter{Addr: addr, URL: "http://" + addr + "/metrics"}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := &http.Client{Timeout: 5 * time.Second}
	for {
		select {
		case <-done:
			log, _ := os.ReadFile(logFile)
			t.Fatalf("%s exited before serving:\n%s", bin, log)
		case <-ctx.Done():
			log, _ := os.ReadFile(logFile)
			t.Fatalf("%s not serving %s after 30s:\n%s", bin, n.URL, log)
		case <-time.After(100 * time.Millisecond):
		}
		if resp, err := client.Get(n.URL); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return n
			}
		}
	}
}
