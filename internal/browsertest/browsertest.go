// Package browsertest opens pages in a real headless Chromium (Debian's
// chromium package) over the DevTools protocol: it records console errors,
// uncaught exceptions and failed loads, takes screenshots and measures how
// much of each chart's canvas is drawn in colour (data, not axes or grid).
package browsertest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/websocket"

	"github.com/kafka-bench/kafka_bench_exporter/internal/testenv"
)

// Browser is one headless Chromium with its own profile directory.
type Browser struct {
	ws      *websocket.Conn
	mu      sync.Mutex
	nextID  int
	pending map[int]chan message
	events  map[string][]func(method string, params json.RawMessage) // by session
}

type message struct {
	ID        int             `json:"id,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

var devtoolsURL = regexp.MustCompile(`DevTools listening on (ws://\S+)`)

// Start launches Chromium for the test and stops it at its end. Without
// chromium on PATH the test skips, or fails in the full suite.
func Start(t testing.TB) *Browser {
	t.Helper()
	bin := testenv.Tool(t, "chromium")
	// The profile is not a t.TempDir: Chromium's helper processes may still
	// be writing to it for a moment after the browser is killed, which would
	// fail the test in TempDir's cleanup.
	profile, err := os.MkdirTemp("", "browsertest-profile-")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--no-first-run", "--disable-extensions", "--disable-background-networking", "--disable-sync",
		"--remote-debugging-port=0", "--remote-allow-origins=*", "--ignore-certificate-errors",
		"--user-data-dir="+profile, "--window-size=1280,1000", "about:blank")
	// Its own process group, so the end of the test kills the renderer and
	// helper processes too, not only the browser process.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
		removeProfile(t, profile)
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := devtoolsURL.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
				break
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	var wsURL string
	select {
	case wsURL = <-found:
	case <-time.After(60 * time.Second):
		t.Fatal("chromium did not print its DevTools address within 60 s")
	}
	ws, err := websocket.Dial(wsURL, "", "http://127.0.0.1/")
	if err != nil {
		t.Fatal(err)
	}
	ws.MaxPayloadBytes = 256 << 20 // full-page screenshots
	b := &Browser{ws: ws, pending: map[int]chan message{}, events: map[string][]func(string, json.RawMessage){}}
	go b.read()
	t.Cleanup(func() { _ = ws.Close() })
	return b
}

func (b *Browser) read() {
	for {
		var m message
		if err := websocket.JSON.Receive(b.ws, &m); err != nil {
			b.mu.Lock()
			for id, ch := range b.pending {
				close(ch)
				delete(b.pending, id)
			}
			b.mu.Unlock()
			return
		}
		b.mu.Lock()
		if m.ID != 0 {
			if ch := b.pending[m.ID]; ch != nil {
				ch <- m
				delete(b.pending, m.ID)
			}
		} else {
			for _, f := range b.events[m.SessionID] {
				f(m.Method, m.Params)
			}
		}
		b.mu.Unlock()
	}
}

// call sends one DevTools command and waits for its answer.
func (b *Browser) call(session, method string, params any, result any) error {
	ch := make(chan message, 1)
	b.mu.Lock()
	b.nextID++
	id := b.nextID
	b.pending[id] = ch
	b.mu.Unlock()
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	if err := websocket.JSON.Send(b.ws, message{ID: id, SessionID: session, Method: method, Params: raw}); err != nil {
		return err
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return fmt.Errorf("%s: browser connection closed", method)
		}
		if m.Error != nil {
			return fmt.Errorf("%s: %s (%d)", method, m.Error.Message, m.Error.Code)
		}
		if result != nil {
			return json.Unmarshal(m.Result, result)
		}
		return nil
	case <-time.After(60 * time.Second):
		return fmt.Errorf("%s: no answer within 60 s", method)
	}
}

// Page is one tab.
type Page struct {
	b       *Browser
	session string
	mu      sync.Mutex
	errs    []string
}

// Open creates a tab of width × height CSS pixels, sends headers with
// every request (an Authorization header for basic auth) and loads url.
func (b *Browser) Open(t testing.TB, url string, width, height int, headers map[string]string) *Page {
	t.Helper()
	var target struct {
		TargetID string `json:"targetId"`
	}
	if err := b.call("", "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		t.Fatal(err)
	}
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.call("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached); err != nil {
		t.Fatal(err)
	}
	p := &Page{b: b, session: attached.SessionID}
	b.mu.Lock()
	b.events[p.session] = append(b.events[p.session], p.event)
	b.mu.Unlock()
	for _, c := range []struct {
		method string
		params any
	}{
		{"Runtime.enable", struct{}{}},
		{"Log.enable", struct{}{}},
		{"Page.enable", struct{}{}},
		{"Network.enable", struct{}{}},
		{"Network.setExtraHTTPHeaders", map[string]any{"headers": headersOrEmpty(headers)}},
		{"Emulation.setDeviceMetricsOverride", map[string]any{"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}},
		{"Page.navigate", map[string]any{"url": url}},
	} {
		if err := b.call(p.session, c.method, c.params, nil); err != nil {
			t.Fatal(err)
		}
	}
	p.WaitFor(t, 60*time.Second, "document loaded", `document.readyState === "complete"`)
	return p
}

func headersOrEmpty(h map[string]string) map[string]string {
	if h == nil {
		return map[string]string{}
	}
	return h
}

// event keeps what a user would see as an error in the console.
func (p *Page) event(method string, params json.RawMessage) {
	var e struct {
		Type string `json:"type"` // Runtime.consoleAPICalled
		Args []struct {
			Value       any    `json:"value"`
			Description string `json:"description"`
		} `json:"args"`
		ExceptionDetails struct { // Runtime.exceptionThrown
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
		Entry struct { // Log.entryAdded
			Level string `json:"level"`
			Text  string `json:"text"`
			URL   string `json:"url"`
		} `json:"entry"`
	}
	if json.Unmarshal(params, &e) != nil {
		return
	}
	var msg string
	switch {
	case method == "Runtime.consoleAPICalled" && (e.Type == "error" || e.Type == "assert"):
		var parts []string
		for _, a := range e.Args {
			parts = append(parts, fmt.Sprint(a.Value)+a.Description)
		}
		msg = "console." + e.Type + ": " + strings.Join(parts, " ")
	case method == "Runtime.exceptionThrown":
		msg = "exception: " + e.ExceptionDetails.Text + " " + e.ExceptionDetails.Exception.Description
	case method == "Log.entryAdded" && e.Entry.Level == "error":
		msg = "log: " + e.Entry.Text + " " + e.Entry.URL
	default:
		return
	}
	p.mu.Lock()
	p.errs = append(p.errs, msg)
	p.mu.Unlock()
}

// Errors are the console errors, uncaught exceptions and failed loads so far.
func (p *Page) Errors() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.errs...)
}

// Eval evaluates a JavaScript expression and decodes its (JSON) value.
func (p *Page) Eval(expr string, out any) error {
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	if err := p.b.call(p.session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &r); err != nil {
		return err
	}
	if r.ExceptionDetails != nil {
		return fmt.Errorf("evaluating %q: %s", expr, r.ExceptionDetails.Text)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(r.Result.Value, out)
}

// WaitFor polls a JavaScript condition until it is true.
func (p *Page) WaitFor(t testing.TB, timeout time.Duration, what, cond string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var last error
	for time.Now().Before(deadline) {
		var ok bool
		if last = p.Eval("Boolean("+cond+")", &ok); last == nil && ok {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s: not within %v (%v); page errors: %q", what, timeout, last, p.Errors())
}

// Rect is an element's box in page coordinates (CSS pixels).
type Rect struct {
	X, Y, Width, Height float64
	Title               string
}

// Charts are the plotting canvases of the page's uPlot charts, with their
// titles.
func (p *Page) Charts() ([]Rect, error) {
	var rs []Rect
	err := p.Eval(`Array.from(document.querySelectorAll(".uplot canvas")).map(function (c) {
		const r = c.getBoundingClientRect();
		const title = c.closest(".uplot").querySelector(".u-title");
		return {X: r.left + window.scrollX, Y: r.top + window.scrollY, Width: r.width, Height: r.height, Title: title ? title.textContent : ""};
	})`, &rs)
	return rs, err
}

// Screenshot captures clip, or the whole page when clip is nil, as PNG.
func (p *Page) Screenshot(clip *Rect) ([]byte, error) {
	if clip == nil {
		var m struct {
			CSSContentSize struct {
				Width, Height float64
			} `json:"cssContentSize"`
		}
		if err := p.b.call(p.session, "Page.getLayoutMetrics", struct{}{}, &m); err != nil {
			return nil, err
		}
		clip = &Rect{Width: m.CSSContentSize.Width, Height: m.CSSContentSize.Height}
	}
	var shot struct {
		Data string `json:"data"`
	}
	err := p.b.call(p.session, "Page.captureScreenshot", map[string]any{
		"format": "png", "captureBeyondViewport": true,
		"clip": map[string]any{"x": clip.X, "y": clip.Y, "width": clip.Width, "height": clip.Height, "scale": 1},
	}, &shot)
	if err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(shot.Data)
}

// ColouredPixels counts the pixels of a PNG whose channels differ by more
// than 60 of 255: series strokes and fills, not the grey grid, axes or text.
func ColouredPixels(pngData []byte) (int, error) {
	img, err := png.Decode(bytes.NewReader(pngData))
	if err != nil {
		return 0, err
	}
	return coloured(img), nil
}

func coloured(img image.Image) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			hi, lo := max(r, g, bl)>>8, min(r, g, bl)>>8
			if hi-lo > 60 {
				n++
			}
		}
	}
	return n
}

// SaveScreenshot writes a full-page screenshot as name into the test's
// artifact directory (kept with go test -artifacts) and, when
// KAFKA_BENCH_SCREENSHOT_DIR is set, there too (docs/ is refreshed so).
func (p *Page) SaveScreenshot(t testing.TB, name string) {
	t.Helper()
	p.saveScreenshot(t, name, nil)
}

// SaveScreenshotOf is SaveScreenshot of the first element that matches the
// CSS selector.
func (p *Page) SaveScreenshotOf(t testing.TB, name, selector string) {
	t.Helper()
	var r *Rect
	sel, _ := json.Marshal(selector)
	if err := p.Eval(`(function () {
		const e = document.querySelector(`+string(sel)+`);
		if (!e) return null;
		const r = e.getBoundingClientRect();
		return {X: r.left + window.scrollX, Y: r.top + window.scrollY, Width: r.width, Height: r.height};
	})()`, &r); err != nil {
		t.Fatal(err)
	}
	if r == nil {
		t.Fatalf("screenshot %s: no element %s", name, selector)
	}
	p.saveScreenshot(t, name, r)
}

func (p *Page) saveScreenshot(t testing.TB, name string, clip *Rect) {
	t.Helper()
	data, err := p.Screenshot(clip)
	if err != nil {
		t.Fatal(err)
	}
	dirs := []string{artifactDir(t)}
	if d := os.Getenv("KAFKA_BENCH_SCREENSHOT_DIR"); d != "" {
		dirs = append(dirs, d)
	}
	for _, d := range dirs {
		path := filepath.Join(d, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s", path)
	}
}

func artifactDir(t testing.TB) string {
	if a, ok := t.(interface{ ArtifactDir() string }); ok {
		return a.ArtifactDir()
	}
	return t.TempDir()
}

// CheckCharts fails the test unless the page has at least want charts and
// every one has at least minPixels coloured pixels: drawn data, not an
// empty frame.
func (p *Page) CheckCharts(t testing.TB, want, minPixels int) {
	t.Helper()
	charts, err := p.Charts()
	if err != nil {
		t.Fatal(err)
	}
	if len(charts) < want {
		t.Fatalf("%d charts on the page, want at least %d", len(charts), want)
	}
	var errs []error
	for _, c := range charts {
		data, err := p.Screenshot(&c)
		if err != nil {
			t.Fatal(err)
		}
		n, err := ColouredPixels(data)
		if err != nil {
			t.Fatal(err)
		}
		if n < minPixels {
			errs = append(errs, fmt.Errorf("chart %q: %d coloured pixels, want at least %d", c.Title, n, minPixels))
		}
	}
	if err := errors.Join(errs...); err != nil {
		t.Error(err)
	}
}

// removeProfile removes the browser profile once the killed processes have
// let go of it: removal is retried for a few seconds, then fails the test.
func removeProfile(t testing.TB, dir string) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := os.RemoveAll(dir)
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("removing the browser profile: %v", err)
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}
