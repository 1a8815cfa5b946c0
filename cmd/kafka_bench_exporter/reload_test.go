package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testenv"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

const reloadProbe = `
  - name: %s
    rate: %d
    record_size: 100
    lag_interval: 500ms
`

func probesFile(t *testing.T, path string, probes ...any) {
	t.Helper()
	var b strings.Builder
	b.WriteString("host: {enabled: false}\nprobes:\n")
	for i := 0; i+1 < len(probes); i += 2 {
		fmt.Fprintf(&b, reloadProbe, probes[i], probes[i+1])
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// SIGHUP and POST /-/reload (with --web.enable-lifecycle) on the real
// binary: probes are added, removed and restarted, the unchanged one keeps
// counting, and an invalid file is rejected (400, logged,
// last_reload_successful 0) while the old configuration keeps running.
func TestReloadBinary(t *testing.T) {
	cfgFile := filepath.Join(t.TempDir(), "probes.yml")
	probesFile(t, cfgFile, "keep", 100, "change", 50, "remove", 50)
	addr := testenv.FreeAddr(t)
	p := startBinary(t, "--web.listen-address="+addr, "--config.file="+cfgFile, "--web.enable-lifecycle")
	url := "http://" + addr
	scrapeOK := func() scrape.Families {
		t.Helper()
		f, err := scrape.Get(url + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	val := func(f scrape.Families, name string, labels ...string) float64 {
		v, _ := f.Value(name, labels...)
		return v
	}
	probetest.Eventually(t, 30*time.Second, "every probe producing", func() (bool, string) {
		f, err := scrape.Get(url + "/metrics")
		if err != nil {
			return false, err.Error()
		}
		state := ""
		ok := true
		for _, name := range []string{"keep", "change", "remove"} {
			v := val(f, "kafka_bench_produced_records_total", "probe", name)
			ok = ok && v > 0
			state += fmt.Sprintf("%s=%v ", name, v)
		}
		return ok, state
	})
	start := scrapeOK()
	if v := val(start, "kafka_bench_config_last_reload_successful"); v != 1 {
		t.Errorf("after start: last_reload_successful = %v, want 1", v)
	}
	ts := val(start, "kafka_bench_config_last_reload_success_timestamp_seconds")
	keepBefore := val(start, "kafka_bench_produced_records_total", "probe", "keep")

	// SIGHUP with a valid file.
	probesFile(t, cfgFile, "keep", 100, "change", 80, "added", 50)
	if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	probetest.Eventually(t, 30*time.Second, "the SIGHUP reload applied", func() (bool, string) {
		f := scrapeOK()
		added := val(f, "kafka_bench_produced_records_total", "probe", "added")
		removed := len(f.Find("kafka_bench_produced_records_total", "probe", "remove"))
		rate := val(f, "kafka_bench_probe_target_rate_records_per_second", "probe", "change")
		return added > 0 && removed == 0 && rate == 80, fmt.Sprintf("added produced=%v, remove series=%d, change rate=%v", added, removed, rate)
	})
	hup := scrapeOK()
	if keep := val(hup, "kafka_bench_produced_records_total", "probe", "keep"); keep <= keepBefore {
		t.Errorf("the unchanged probe's counter went from %v to %v: it was restarted or stalled", keepBefore, keep)
	}
	ts2 := val(hup, "kafka_bench_config_last_reload_success_timestamp_seconds")
	if val(hup, "kafka_bench_config_last_reload_successful") != 1 || ts2 <= ts {
		t.Errorf("after SIGHUP: successful=%v, timestamp %v -> %v", val(hup, "kafka_bench_config_last_reload_successful"), ts, ts2)
	}
	if !strings.Contains(p.logs.String(), "configuration reloaded") {
		t.Error("no log line for the reload")
	}

	// POST /-/reload with an invalid file: 400, nothing changes.
	if err := os.WriteFile(cfgFile, []byte("probes:\n  - name: keep\n    rate: -1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	post := func() (int, string) {
		t.Helper()
		resp, err := http.Post(url+"/-/reload", "", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, body := post()
	if code != http.StatusBadRequest || !strings.Contains(body, `probe "keep": rate = -1: must be a number >= 0`) {
		t.Errorf("POST /-/reload of an invalid file = %d %q, want 400 naming the problem", code, body)
	}
	// SIGHUP with the invalid file: rejected too, no crash.
	if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	probetest.Eventually(t, 10*time.Second, "both rejections logged", func() (bool, string) {
		n := strings.Count(p.logs.String(), "configuration reload rejected")
		return n == 2, fmt.Sprintf("%d rejection lines", n)
	})
	bad := scrapeOK()
	if v := val(bad, "kafka_bench_config_last_reload_successful"); v != 0 {
		t.Errorf("after a rejected reload: last_reload_successful = %v, want 0", v)
	}
	if v := val(bad, "kafka_bench_config_last_reload_success_timestamp_seconds"); v != ts2 {
		t.Errorf("a rejected reload moved the success timestamp: %v -> %v", ts2, v)
	}
	for _, name := range []string{"keep", "change", "added"} {
		if len(bad.Find("kafka_bench_produced_records_total", "probe", name)) == 0 {
			t.Errorf("probe %s stopped on a rejected reload", name)
		}
	}
	p.alive(t)

	// POST /-/reload with a valid file again.
	probesFile(t, cfgFile, "keep", 100)
	if code, body := post(); code != http.StatusOK {
		t.Errorf("POST /-/reload of a valid file = %d %q", code, body)
	}
	good := scrapeOK()
	if val(good, "kafka_bench_config_last_reload_successful") != 1 || len(good.Find("kafka_bench_produced_records_total", "probe", "added")) != 0 {
		t.Errorf("after a good POST reload: successful=%v, added series=%d", val(good, "kafka_bench_config_last_reload_successful"),
			len(good.Find("kafka_bench_produced_records_total", "probe", "added")))
	}
	p.stop(t)
}

// Without --web.enable-lifecycle, POST and PUT /-/reload answer 403 as
// Prometheus does and change nothing, while SIGHUP still reloads.
func TestReloadLifecycleDisabled(t *testing.T) {
	cfgFile := filepath.Join(t.TempDir(), "probes.yml")
	probesFile(t, cfgFile, "first", 50)
	addr := testenv.FreeAddr(t)
	p := startBinary(t, "--web.listen-address="+addr, "--config.file="+cfgFile)
	url := "http://" + addr
	probes := func() (map[string]bool, error) {
		f, err := scrape.Get(url + "/metrics")
		if err != nil {
			return nil, err
		}
		out := map[string]bool{}
		for _, name := range []string{"first", "second"} {
			out[name] = len(f.Find("kafka_bench_probe_target_rate_records_per_second", "probe", name)) > 0
		}
		return out, nil
	}
	probetest.Eventually(t, 30*time.Second, "the first probe running", func() (bool, string) {
		got, err := probes()
		return err == nil && got["first"], fmt.Sprintf("%v %v", got, err)
	})

	probesFile(t, cfgFile, "first", 50, "second", 50)
	for _, method := range []string{http.MethodPost, http.MethodPut} {
		req, _ := http.NewRequest(method, url+"/-/reload", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden || string(b) != "Lifecycle API is not enabled.\n" {
			t.Errorf("%s /-/reload without --web.enable-lifecycle = %d %q, want 403", method, resp.StatusCode, b)
		}
	}
	if got, err := probes(); err != nil || got["second"] {
		t.Errorf("after the refused HTTP reloads: probes %v, %v; want the file not applied", got, err)
	}
	if strings.Contains(p.logs.String(), "configuration reloaded") {
		t.Error("a refused HTTP reload was applied")
	}

	if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	probetest.Eventually(t, 30*time.Second, "the SIGHUP reload applied", func() (bool, string) {
		got, err := probes()
		return err == nil && got["second"], fmt.Sprintf("%v %v", got, err)
	})
	p.stop(t)
}
