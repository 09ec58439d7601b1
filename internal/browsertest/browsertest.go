// Package browsertest opens latlab's HTML pages in headless Chromium for
// tests: it finds the browser, loads a page from a file, measures every
// plot as laid out, measures the page's layout (Violations: tables wider
// than the window, bars too thin to see, blank space), collects what the page logged as an error or warning,
// and takes screenshots. Chromium is Debian's chromium (CI installs it);
// without one, and under go test -short, Chromium skips the test.
//
// A test calls Open with its *testing.T, the page's file and a folder for
// screenshots ("" takes none) and checks the Page it returns: its Plots,
// its Violations and what it logged.
//
// Each Open starts its own browser with a fresh profile, so tests may call it
// in parallel.
package browsertest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Chromium returns the browser to run: $LATLAB_CHROMIUM, else chromium (or
// chromium-browser, google-chrome) on $PATH. It skips t without one, and
// under go test -short.
func Chromium(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("opens the page in headless Chromium; make test runs it")
	}
	if p := os.Getenv("LATLAB_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium on PATH (apt-get install chromium)")
	return ""
}

// A Plot is one svg.plot of a page: the data it declares and what the
// browser laid out.
type Plot struct {
	ID     string  `json:"id"`
	Series int     `json:"series"` // data-series
	Points int     `json:"points"` // data-points
	Paths  int     `json:"paths"`  // series elements with a drawn extent
	Width  float64 `json:"width"`  // rendered size of the svg element
	Height float64 `json:"height"`
	Data   float64 `json:"data"` // summed rendered length of the series paths
}

// A Page is what Open found.
type Page struct {
	Path     string // the file opened
	Plots    []Plot
	Layout   Layout   // geometry for Violations
	Sections []string // ids of the page's sections, in order
	Problems []string // console errors and warnings, exceptions, log errors
}

// measure runs in the page.
const measure = `({
  plots: Array.from(document.querySelectorAll("svg.plot")).map(svg => {
    const r = svg.getBoundingClientRect();
    let data = 0, drawn = 0;
    for (const p of svg.querySelectorAll(".series")) {
      let len = 0;
      try { len = p.getTotalLength ? p.getTotalLength() : 0 } catch (e) {}
      const b = p.getBBox();
      if (len > 0 || b.width > 0 || b.height > 0) drawn++;
      data += len;
    }
    return {id: svg.id, series: +svg.dataset.series, points: +svg.dataset.points, paths: drawn,
            width: r.width, height: r.height, data: data};
  }),
  sections: Array.from(document.querySelectorAll("section")).map(s => s.id),
})`

// Open loads the HTML file at path in headless Chromium (with the flags a
// closed network needs), 1400 px wide, and measures it: its plots and
// its Layout. With shots set, it saves a
// full-page screenshot NAME.jpg there and one NAME-section-ID.png per
// section. Failing to run the browser fails t.
func Open(t testing.TB, path, shots string) Page {
	t.Helper()
	exe := Chromium(t)
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.UserDataDir(filepath.Join(t.TempDir(), "profile")), chromedp.WindowSize(1400, 1000),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-default-browser-check", true),
	}
	// Generous: CI machines are busy, and nothing here measures time.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	defer acancel()
	bctx, bcancel := chromedp.NewContext(actx)
	defer bcancel()

	var mu sync.Mutex
	var page Page
	listen := func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning {
				page.Problems = append(page.Problems, fmt.Sprintf("console %s: %d argument(s)", ev.Type, len(ev.Args)))
			}
		case *runtime.EventExceptionThrown:
			page.Problems = append(page.Problems, "exception: "+ev.ExceptionDetails.Text)
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError || ev.Entry.Level == log.EntryLevelWarning {
				page.Problems = append(page.Problems, fmt.Sprintf("log %s: %s %s", ev.Entry.Level, ev.Entry.Text, ev.Entry.URL))
			}
		}
	}
	if err := chromedp.Listen(bctx, listen); err != nil {
		t.Fatalf("chromium %s: %v", exe, err)
	}
	if _, err := chromedp.Call(bctx, runtime.Enable, cdp.Empty{}); err != nil {
		t.Fatalf("chromium %s: %v", exe, err)
	}
	if _, err := chromedp.Call(bctx, log.Enable, cdp.Empty{}); err != nil {
		t.Fatalf("chromium %s: %v", exe, err)
	}
	if err := chromedp.Do(bctx, chromedp.Navigate("file://"+abs), chromedp.WaitVisible(chromedp.CSS("footer"))); err != nil {
		t.Fatalf("opening %s: %v", path, err)
	}
	found, err := chromedp.Run(bctx, chromedp.Evaluate[struct {
		Plots    []Plot   `json:"plots"`
		Sections []string `json:"sections"`
	}](measure))
	if err != nil {
		t.Fatalf("measuring %s: %v", path, err)
	}
	layout, err := chromedp.Run(bctx, chromedp.Evaluate[Layout](layoutJS))
	if err != nil {
		t.Fatalf("measuring the layout of %s: %v", path, err)
	}
	if shots != "" {
		screenshots(t, bctx, path, shots, found.Sections)
	}
	mu.Lock()
	defer mu.Unlock()
	page.Path, page.Plots, page.Sections, page.Layout = path, found.Plots, found.Sections, layout
	return page
}

// screenshots saves the whole page and each section into dir.
func screenshots(t testing.TB, bctx context.Context, path, dir string, sections []string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	full, err := chromedp.Run(bctx, chromedp.FullScreenshot(80))
	if err != nil {
		t.Fatalf("screenshot of %s: %v", path, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".jpg"), full, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, id := range sections {
		shot, err := chromedp.Run(bctx, chromedp.Screenshot(chromedp.CSS("#"+id)))
		if err != nil {
			t.Errorf("screenshot of section %s of %s: %v", id, path, err)
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, name+"-section-"+id+".png"), shot, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("screenshots of %s in %s", path, dir)
}
