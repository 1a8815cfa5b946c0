package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/internal/browsertest"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

// TestLandingPageInBrowser is the quick start seen in a browser: the
// exporter on the embedded cluster, behind TLS and basic auth, and its
// landing page in headless Chromium — every sparkline of the probe drawn,
// each with its unit, no console errors, a screenshot kept.
func TestLandingPageInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and starts a browser")
	}
	browser := browsertest.Start(t)
	srv := startBehindWebConfig(t, "200")
	p, addr, get, user, password := srv.p, srv.addr, srv.get, srv.user, srv.password

	// Every path of the page is behind the same auth.
	for _, path := range []string{"/", "/live.json", "/static/uplot.min.js", "/static/landing.js"} {
		if code, _, err := get(http.MethodGet, path, "", ""); err != nil || code != http.StatusUnauthorized {
			t.Errorf("%s without credentials: %d %v, want 401", path, code, err)
		}
	}

	// Six samples (30 s) with a rate and both p99s: a line in every
	// sparkline.
	probetest.Eventually(t, 120*time.Second, "six live samples of the default probe", func() (bool, string) {
		code, body, err := get(http.MethodGet, "/live.json", user, password)
		if err != nil || code != http.StatusOK {
			return false, fmt.Sprint(code, err)
		}
		var live struct {
			Probes []map[string]json.RawMessage `json:"probes"`
		}
		if err := json.Unmarshal([]byte(body), &live); err != nil {
			return false, err.Error()
		}
		if len(live.Probes) != 1 {
			return false, body
		}
		for _, key := range []string{"records_per_sec", "produce_p99_ms", "end_to_end_p99_ms"} {
			var vs []*float64
			if err := json.Unmarshal(live.Probes[0][key], &vs); err != nil {
				return false, err.Error()
			}
			n := 0
			for _, v := range vs {
				if v != nil {
					n++
				}
			}
			if n < 6 {
				return false, key + ": " + string(live.Probes[0][key])
			}
		}
		return true, ""
	})

	auth := "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+password))
	page := browser.Open(t, "https://"+addr+"/", 1100, 900, map[string]string{"Authorization": auth})
	page.WaitFor(t, 30*time.Second, "sparklines drawn", "window.KB && KB.charts.length >= 6")
	page.CheckCharts(t, 6, 100)
	// Every sparkline's title names its unit: "lag (s): 0.00, max 0.12".
	var titles []string
	if err := page.Eval(`KB.charts.map(function (u) { return u.root.querySelector(".u-title").textContent; })`, &titles); err != nil {
		t.Fatal(err)
	}
	unit := regexp.MustCompile(`^[^:(]+ \((records/s|ms|records|s|0/1)\): `)
	seconds := false
	for _, title := range titles {
		seconds = seconds || strings.HasPrefix(title, "lag (s): ")
		if !unit.MatchString(title) {
			t.Errorf("sparkline %q has no unit in its title", title)
		}
	}
	if !seconds {
		t.Errorf("no sparkline of lag in seconds among %q", titles)
	}
	// The page redraws itself from live.json every few seconds.
	var points int
	if err := page.Eval("KB.charts[0].data[0].length", &points); err != nil {
		t.Fatal(err)
	}
	page.WaitFor(t, 30*time.Second, "a refresh with a new sample", fmt.Sprintf("KB.charts[0].data[0].length > %d", points))
	page.SaveScreenshot(t, "landing.png")
	if errs := page.Errors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
	p.alive(t)
}
