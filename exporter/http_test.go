package exporter_test

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kafka-bench/kafka_bench_exporter/exporter"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

var localHref = regexp.MustCompile(`href="(/?[^"#:]*(?:\?[^"]*)?)"`)

// Every local link of the landing page answers (no 404), with pprof off and
// on; the pprof links are there only when pprof is served.
func TestLandingPageHasNoDeadLinks(t *testing.T) {
	for _, pprof := range []bool{false, true} {
		e := exporter.New(prometheus.NewRegistry(), probetest.Logger())
		srv := httptest.NewServer(e.Handler(exporter.HandlerOpts{TelemetryPath: "/metrics", Pprof: pprof}))
		page := get(t, srv.URL+"/", http.StatusOK)
		links := localHref.FindAllStringSubmatch(page, -1)
		if len(links) < 4 {
			t.Errorf("pprof %v: only %d local links on the landing page", pprof, len(links))
		}
		sawPprof := false
		for _, l := range links {
			href := strings.ReplaceAll(l[1], "&amp;", "&")
			if !strings.HasPrefix(href, "/") {
				href = "/" + href
			}
			sawPprof = sawPprof || strings.Contains(href, "debug/pprof")
			// A 60 s CPU profile would hold the test for a minute.
			href = strings.Replace(href, "seconds=60", "seconds=1", 1)
			resp, err := http.Get(srv.URL + href)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode == http.StatusNotFound {
				t.Errorf("pprof %v: landing page links %s, which answers 404", pprof, l[1])
			}
		}
		if sawPprof != pprof {
			t.Errorf("pprof served %v, but pprof links on the landing page: %v", pprof, sawPprof)
		}
		want := http.StatusNotFound
		if pprof {
			want = http.StatusOK
		}
		get(t, srv.URL+"/debug/pprof/heap", want)
		srv.Close()
		e.Stop()
	}
}

// /-/reload: POST and PUT reload with EnableLifecycle (--web.enable-lifecycle);
// without it they answer 403 as Prometheus does, and Reload never runs;
// without a configuration file (Reload nil) they answer 400; other methods
// 405; a failed reload's answer is redacted.
func TestReloadEndpoint(t *testing.T) {
	e := exporter.New(prometheus.NewRegistry(), probetest.Logger())
	t.Cleanup(e.Stop)
	calls := 0
	reload := func() error { calls++; return nil }
	with := httptest.NewServer(e.Handler(exporter.HandlerOpts{TelemetryPath: "/metrics", Reload: reload, EnableLifecycle: true}))
	defer with.Close()
	disabled := httptest.NewServer(e.Handler(exporter.HandlerOpts{TelemetryPath: "/metrics", Reload: reload}))
	defer disabled.Close()
	without := httptest.NewServer(e.Handler(exporter.HandlerOpts{TelemetryPath: "/metrics", EnableLifecycle: true}))
	defer without.Close()
	failing := httptest.NewServer(e.Handler(exporter.HandlerOpts{TelemetryPath: "/metrics", EnableLifecycle: true,
		Reload: func() error { return errors.New(`Get "https://bench:hunter2@idp.example/token": refused`) }}))
	defer failing.Close()
	for _, c := range []struct {
		name, url, method string
		want              int
		body              string
	}{
		{"enabled", with.URL, http.MethodPost, http.StatusOK, "Reloaded.\n"},
		{"enabled", with.URL, http.MethodPut, http.StatusOK, "Reloaded.\n"},
		{"enabled", with.URL, http.MethodGet, http.StatusMethodNotAllowed, ""},
		{"disabled", disabled.URL, http.MethodPost, http.StatusForbidden, "Lifecycle API is not enabled.\n"},
		{"disabled", disabled.URL, http.MethodPut, http.StatusForbidden, "Lifecycle API is not enabled.\n"},
		{"disabled", disabled.URL, http.MethodGet, http.StatusMethodNotAllowed, ""},
		{"no file", without.URL, http.MethodPost, http.StatusBadRequest, ""},
		{"failing", failing.URL, http.MethodPost, http.StatusBadRequest, "Reload failed: Get \"https://bench:<secret>@idp.example/token\": refused\n"},
	} {
		req, _ := http.NewRequest(c.method, c.url+"/-/reload", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.want || (c.body != "" && string(body) != c.body) {
			t.Errorf("%s /-/reload (%s) = %d %q, want %d %q", c.method, c.name, resp.StatusCode, body, c.want, c.body)
		}
	}
	if calls != 2 {
		t.Errorf("reload ran %d times, want 2 (POST and PUT with the lifecycle API enabled)", calls)
	}
}

func get(t *testing.T, url string, want int) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		t.Errorf("GET %s = %d, want %d", url, resp.StatusCode, want)
	}
	return string(b)
}

// /changes is served (an empty JSON array before any change) and linked
// from the landing page.
func TestChangesEndpoint(t *testing.T) {
	e := exporter.New(prometheus.NewRegistry(), slog.New(slog.DiscardHandler))
	srv := httptest.NewServer(e.Handler(exporter.HandlerOpts{TelemetryPath: "/metrics"}))
	defer srv.Close()
	for path, want := range map[string]string{"/changes": "[]", "/": `href="/changes"`} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), want) {
			t.Errorf("GET %s: %s, body lacks %q:\n%s", path, resp.Status, want, body)
		}
	}
}
