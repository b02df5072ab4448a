package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"iter"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sysprompt/sysprompt/engine/report"
)

// browserBound bounds the whole browser test: start, every page, exit.
// It is a limit on a hang, not a speed assertion.
const browserBound = 2 * time.Minute

// consoleSentinel is logged after the checks; every message the page
// caused comes before it.
const consoleSentinel = "sysprompt: end of the page checks"

// chromiumPath finds Debian's Chromium. Without it the test skips, except
// in CI (CI=true), where .ci/chromium installs it and its absence is a
// failure.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if ci, _ := strconv.ParseBool(os.Getenv("CI")); ci {
		t.Fatal("Chromium is not installed; CI installs it with .ci/chromium")
	}
	t.Skip("Chromium is not installed (apt-get install chromium); with CI=true this fails")
	return ""
}

// screenshotDir is $SYSPROMPT_SCREENSHOT_DIR when set, to keep the
// pictures; otherwise a temporary folder. Never the repository.
func screenshotDir(t *testing.T) string {
	dir := os.Getenv("SYSPROMPT_SCREENSHOT_DIR")
	if dir == "" {
		return t.TempDir()
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	return dir
}

// startBrowser starts headless Chromium with a fresh profile and nothing
// that reaches for the network on its own. Its TMPDIR is a test folder,
// so the scratch folders it makes there go with the test.
func startBrowser(t *testing.T) context.Context {
	if testing.Short() {
		t.Skip("-short: starts a browser")
	}
	path := chromiumPath(t)
	ctx, cancel := context.WithTimeout(context.Background(), browserBound)
	t.Cleanup(cancel)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Env("TMPDIR="+t.TempDir()),
		chromedp.WindowSize(1200, 900),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(cancelAlloc)
	browserCtx, cancelBrowser := chromedp.NewContext(allocCtx)
	// Cleanups run last first: the browser exits before its profile
	// folder is removed. chromedp.Cancel asks the browser to close and
	// waits for it, so Chromium removes its own scratch folders and
	// reaps its children; cancelling the context alone kills it.
	t.Cleanup(func() {
		_ = chromedp.Cancel(browserCtx)
		cancelBrowser()
	})
	require.NoError(t, chromedp.Do(browserCtx), "starting %s", path)
	return browserCtx
}

// TestReportHTMLInBrowser loads each example page from a file:// URL in
// headless Chromium: nothing is logged to the console and nothing thrown,
// the only request is for the page itself, the bars are laid out by
// tokens, dark mode applies, and a screenshot of each scheme is taken.
func TestReportHTMLInBrowser(t *testing.T) {
	browser := startBrowser(t)
	shots := screenshotDir(t)
	pages := t.TempDir()
	for name, args := range examplePages(t) {
		file := filepath.Join(pages, name+".html")
		code, _, errOut := cli(append([]string{"report", "html", "-o", file}, args...)...)
		require.Equal(t, 0, code, errOut)
		t.Run(name, func(t *testing.T) {
			tab := openTab(t, browser, file)
			tab.checkBars(t)
			tab.checkLegend(t)
			tab.checkNumbers(t, args)
			tab.screenshots(t, filepath.Join(shots, "report-"+name))
			assert.Empty(t, tab.problems(t), "console errors, warnings or exceptions")
			assert.Equal(t, []string{tab.url}, tab.requestedURLs(), "the page loads nothing but itself")
		})
	}
}

// A request whose tools outweigh its prompt shows tools as the widest
// segment of the request bar, labelled in the bar itself.
func TestReportHTMLToolsHeavyInBrowser(t *testing.T) {
	browser := startBrowser(t)
	var b strings.Builder
	for i := range 40 {
		fmt.Fprintf(&b, "[[tools]]\nname = \"tool_%d\"\ndescription = \"Does thing %d with care.\"\nschema = { type = \"object\", properties = { %s } }\n", i, i,
			strings.Repeat(fmt.Sprintf(`p%d = { type = "string", description = "a parameter of some length" }, `, i), 1)+`q = { type = "integer" }`)
	}
	dir := writeFiles(t, map[string]string{"r.toml": b.String()})
	file := filepath.Join(dir, "tools.html")
	code, _, errOut := cli("report", "html", "-mode", "minimal", "-request", filepath.Join(dir, "r.toml"), "-o", file)
	require.Equal(t, 0, code, errOut)
	tab := openTab(t, browser, file)
	widest, err := chromedp.Run(tab.ctx, chromedp.Evaluate[map[string]any](`(() => {
		const segs = [...document.querySelectorAll("#request-bar .seg")];
		const w = segs.map(s => s.getBoundingClientRect().width);
		const s = segs[w.indexOf(Math.max(...w))];
		return {group: s.dataset.group, text: s.textContent};
	})()`))
	require.NoError(t, err)
	assert.Equal(t, "tools", widest["group"])
	assert.Equal(t, "tools (descriptions and schemas)", widest["text"])
	tab.checkLegend(t)
	assert.Empty(t, tab.problems(t))
}

// The checks are not blind: a page with a remote image gets a
// Content-Security-Policy error on the console, and the image's request,
// which the tab reports, is blocked before it leaves the browser.
func TestReportHTMLBrowserSeesBlockedLoads(t *testing.T) {
	browser := startBrowser(t)
	code, page, errOut := cli(append([]string{"report", "html"}, examplePages(t)["codex"]...)...)
	require.Equal(t, 0, code, errOut)
	const pixel = "http://127.0.0.1:9/pixel.png" // loopback, should the block ever fail
	tampered := strings.Replace(page, "<body>", `<body><img src="`+pixel+`" alt="">`, 1)
	require.NotEqual(t, page, tampered)
	file := filepath.Join(t.TempDir(), "tampered.html")
	require.NoError(t, os.WriteFile(file, []byte(tampered), 0o644))

	tab := openTab(t, browser, file)
	problems := tab.problems(t)
	require.NotEmpty(t, problems)
	assert.Contains(t, strings.Join(problems, "\n"), "Content Security Policy")
	assert.Equal(t, []string{tab.url, pixel}, tab.requestedURLs())
	assert.Equal(t, network.BlockedReasonCsp, tab.blocked(pixel))
}

// browserTab is one page loaded in its own tab, with what it logged and
// requested.
type browserTab struct {
	ctx      context.Context
	url      string
	messages iter.Seq2[chromedp.ConsoleMessage, error]

	mu       sync.Mutex
	requests []*tabRequest
	byID     map[network.RequestID]*tabRequest
}

type tabRequest struct {
	url     string
	blocked network.BlockedReason
}

// listen records the tab's requests and why any was blocked. It runs on
// chromedp's event goroutine, so it only records.
func (b *browserTab) listen(ev any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch e := ev.(type) {
	case *network.EventRequestWillBeSent:
		r := &tabRequest{url: e.Request.URL}
		b.requests = append(b.requests, r)
		b.byID[e.RequestID] = r
	case *network.EventLoadingFailed:
		if r := b.byID[e.RequestID]; r != nil {
			r.blocked = e.BlockedReason
		}
	}
}

func openTab(t *testing.T, browser context.Context, file string) *browserTab {
	t.Helper()
	tab := &browserTab{url: "file://" + filepath.ToSlash(file), byID: map[network.RequestID]*tabRequest{}}
	ctx, cancel := chromedp.NewContext(browser, chromedp.WithListener(tab.listen))
	t.Cleanup(cancel)
	tab.ctx = ctx
	// Subscribed before the navigation, so no message is missed.
	tab.messages = chromedp.Console(ctx)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(tab.url)))
	return tab
}

// problems logs the sentinel and returns every error, warning and
// exception the console got before it.
func (b *browserTab) problems(t *testing.T) []string {
	t.Helper()
	require.NoError(t, chromedp.Do(b.ctx, chromedp.Evaluate[chromedp.Void](`console.debug(`+strconv.Quote(consoleSentinel)+`)`)))
	var out []string
	for m, err := range b.messages {
		require.NoError(t, err)
		if m.Text == consoleSentinel {
			break
		}
		switch m.Type {
		case chromedp.ConsoleError, chromedp.ConsoleWarning, chromedp.ConsoleException:
			out = append(out, m.String())
		}
	}
	return out
}

// requestedURLs is what the tab asked for. Every event before the
// sentinel has reached the listener once problems has returned.
func (b *browserTab) requestedURLs() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var urls []string
	for _, r := range b.requests {
		urls = append(urls, r.url)
	}
	return urls
}

// blocked is why the browser blocked the request for url, if it did.
func (b *browserTab) blocked(url string) network.BlockedReason {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, r := range b.requests {
		if r.url == url {
			return r.blocked
		}
	}
	return ""
}

// barGeometry is one layer's bar as laid out.
type barGeometry struct {
	Tokens   []float64 `json:"tokens"`
	Widths   []float64 `json:"widths"`
	Boundary float64   `json:"boundary"`
}

const barGeometryJS = `[...document.querySelectorAll("#sections .bar")].map(bar => {
	const segs = [...bar.querySelectorAll(".seg")];
	return {
		tokens: segs.map(s => Number(s.dataset.tokens)),
		widths: segs.map(s => s.getBoundingClientRect().width),
		boundary: bar.querySelector(".boundary").getBoundingClientRect().width,
	};
})`

// checkBars checks the layout: each segment's width is its share of the
// bar's tokens, to within a pixel, and the boundary is drawn.
func (b *browserTab) checkBars(t *testing.T) {
	t.Helper()
	bars, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]barGeometry](barGeometryJS))
	require.NoError(t, err)
	require.NotEmpty(t, bars)
	for i, bar := range bars {
		require.Len(t, bar.Widths, len(bar.Tokens))
		var width, tokens float64
		for j := range bar.Widths {
			width += bar.Widths[j]
			tokens += bar.Tokens[j]
		}
		assert.Greater(t, width, 900.0, "bar %d spans the page", i)
		assert.Positive(t, bar.Boundary, "bar %d shows its boundary", i)
		for j := range bar.Widths {
			want := width * bar.Tokens[j] / tokens
			assert.LessOrEqual(t, math.Abs(bar.Widths[j]-want), 1.0, "bar %d segment %d: %.1f px for %v of %v tokens", i, j, bar.Widths[j], bar.Tokens[j], tokens)
		}
	}
}

// screenshots saves the whole page in the light and the dark scheme as
// PREFIX-light.png and PREFIX-dark.png, and checks the schemes differ.
func (b *browserTab) screenshots(t *testing.T, prefix string) {
	t.Helper()
	background := map[string]string{}
	for _, scheme := range []string{"light", "dark"} {
		_, err := chromedp.Call(b.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
		require.NoError(t, err)
		bg, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`getComputedStyle(document.body).backgroundColor`))
		require.NoError(t, err)
		background[scheme] = bg
		shot, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
		require.NoError(t, err)
		img, err := png.DecodeConfig(bytes.NewReader(shot))
		require.NoError(t, err, "a PNG")
		assert.GreaterOrEqual(t, img.Width, 1000)
		assert.Greater(t, img.Height, 900, "the whole page, not the window")
		file := prefix + "-" + scheme + ".png"
		require.NoError(t, os.WriteFile(file, shot, 0o644))
		t.Logf("screenshot: %s", file)
	}
	assert.NotEqual(t, background["light"], background["dark"], "prefers-color-scheme: dark changes the page")
}

// legendJS pairs every bar segment with its legend entry: a row of the
// section table or an entry under the request bars, found by the
// segment's data-key, and reads both colours as the browser draws them.
const legendJS = `[...document.querySelectorAll(".bar")].map(bar => [...bar.querySelectorAll(".seg")].map(seg => {
	const scope = seg.closest("section");
	const entry = [...scope.querySelectorAll("[data-legend]")].find(e => e.dataset.legend === seg.dataset.key);
	const swatch = entry && entry.querySelector(".swatch");
	const box = entry ? entry.getBoundingClientRect() : {width: 0, height: 0};
	return {
		key: seg.dataset.key || "",
		colour: getComputedStyle(seg).backgroundColor,
		swatch: swatch ? getComputedStyle(swatch).backgroundColor : "",
		text: entry ? entry.textContent.trim() : "",
		visible: box.width > 0 && box.height > 0,
	};
}))`

type legendPair struct {
	Key     string `json:"key"`
	Colour  string `json:"colour"`
	Swatch  string `json:"swatch"`
	Text    string `json:"text"`
	Visible bool   `json:"visible"`
}

// checkLegend: every segment of every bar has a visible legend entry
// whose swatch is drawn in the segment's colour, and no two segments of
// a bar share a colour, so the page reads without hovering.
func (b *browserTab) checkLegend(t *testing.T) {
	t.Helper()
	bars, err := chromedp.Run(b.ctx, chromedp.Evaluate[[][]legendPair](legendJS))
	require.NoError(t, err)
	require.NotEmpty(t, bars)
	for i, bar := range bars {
		seen := map[string]string{}
		for _, p := range bar {
			require.NotEmpty(t, p.Key, "bar %d: a segment without a key", i)
			assert.True(t, p.Visible, "bar %d: %s has a visible legend entry", i, p.Key)
			assert.NotEmpty(t, p.Text, "bar %d: %s's legend entry says what it is", i, p.Key)
			assert.Equal(t, p.Colour, p.Swatch, "bar %d: %s's swatch is its colour", i, p.Key)
			if other, ok := seen[p.Colour]; ok {
				t.Errorf("bar %d: %s and %s share the colour %s", i, other, p.Key, p.Colour)
			}
			seen[p.Colour] = p.Key
		}
	}
}

// checkNumbers: the figures the page shows, as the browser reads them,
// are report json's for the same flags.
func (b *browserTab) checkNumbers(t *testing.T, args []string) {
	t.Helper()
	code, out, errOut := cli(append([]string{"report", "json"}, args...)...)
	require.Equal(t, 0, code, errOut)
	var rep report.Report
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	shown, err := chromedp.Run(b.ctx, chromedp.Evaluate[map[string]string](`(() => {
		const d = document.querySelector("#totals").dataset;
		const out = {request: d.requestTokens, window: d.contextWindow, free: d.free, reserve: d.outputReserve,
			cards: document.querySelector("#totals").innerText};
		for (const s of document.querySelectorAll("#request-bar .seg")) out["group " + s.dataset.group] = s.dataset.tokens;
		return out;
	})()`))
	require.NoError(t, err)
	want := map[string]string{"request": strconv.Itoa(rep.Request.Tokens), "window": strconv.Itoa(rep.Window.ContextWindow),
		"free": strconv.Itoa(rep.Window.Free), "reserve": strconv.Itoa(rep.Window.OutputReserve)}
	for _, g := range rep.Groups {
		want["group "+g.Name] = strconv.Itoa(g.Tokens)
	}
	cards := shown["cards"]
	delete(shown, "cards")
	assert.Equal(t, want, shown)
	for _, figure := range []int{rep.Request.Tokens, rep.Window.ContextWindow, rep.Window.Free} {
		assert.Contains(t, cards, num(figure), "the cards show window, used and free")
	}
}
