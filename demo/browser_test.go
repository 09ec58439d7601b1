package demo

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

// browser finds Chromium as report's browser test does: $LATLAB_CHROMIUM,
// else chromium on $PATH; the test skips without one.
func browser(t *testing.T) string {
	t.Helper()
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

// plotInfo is what one of the page's SVG plots looks like once laid out.
type plotInfo struct {
	ID     string  `json:"id"`
	Series int     `json:"series"`
	Points int     `json:"points"`
	Paths  int     `json:"paths"`  // series paths with a drawn outline
	Width  float64 `json:"width"`  // rendered size of the svg element
	Height float64 `json:"height"` //
}

// measurePlots runs in the page: for every svg.plot, its declared data and
// what the browser laid out.
const measurePlots = `Array.from(document.querySelectorAll("svg.plot")).map(svg => {
  const r = svg.getBoundingClientRect();
  let drawn = 0;
  for (const p of svg.querySelectorAll(".series")) {
    const b = p.getBBox();
    if (b.width > 0 || b.height > 0) drawn++;
  }
  return {id: svg.id, series: +svg.dataset.series, points: +svg.dataset.points, paths: drawn,
          width: r.width, height: r.height};
})`

// checkInBrowser opens page in headless Chromium: every plot must be laid
// out with data drawn, and the page must log no error or warning. A
// screenshot of the page goes to $LATLAB_SCREENSHOTS when it is set.
func checkInBrowser(t *testing.T, page string) {
	t.Helper()
	exe := browser(t)
	dir := t.TempDir()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.UserDataDir(filepath.Join(dir, "profile")), chromedp.WindowSize(1400, 1000),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-default-browser-check", true),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	defer acancel()
	bctx, bcancel := chromedp.NewContext(actx)
	defer bcancel()

	var mu sync.Mutex
	var problems []string
	listen := func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning {
				problems = append(problems, fmt.Sprintf("console %s: %d argument(s)", ev.Type, len(ev.Args)))
			}
		case *runtime.EventExceptionThrown:
			problems = append(problems, "exception: "+ev.ExceptionDetails.Text)
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError || ev.Entry.Level == log.EntryLevelWarning {
				problems = append(problems, fmt.Sprintf("log %s: %s %s", ev.Entry.Level, ev.Entry.Text, ev.Entry.URL))
			}
		}
	}
	if err := chromedp.Listen(bctx, listen); err != nil {
		t.Fatalf("chromium %s: %v", exe, err)
	}
	for _, enable := range []func() error{
		func() error { _, err := chromedp.Call(bctx, runtime.Enable, cdp.Empty{}); return err },
		func() error { _, err := chromedp.Call(bctx, log.Enable, cdp.Empty{}); return err },
	} {
		if err := enable(); err != nil {
			t.Fatalf("chromium %s: %v", exe, err)
		}
	}
	if err := chromedp.Do(bctx, chromedp.Navigate("file://"+page), chromedp.WaitVisible(chromedp.CSS("footer"))); err != nil {
		t.Fatalf("opening %s: %v", page, err)
	}
	plots, err := chromedp.Run(bctx, chromedp.Evaluate[[]plotInfo](measurePlots))
	if err != nil {
		t.Fatalf("measuring the plots of %s: %v", page, err)
	}
	shot, err := chromedp.Run(bctx, chromedp.FullScreenshot(80))
	if err != nil {
		t.Fatalf("screenshot of %s: %v", page, err)
	}
	if shots := os.Getenv("LATLAB_SCREENSHOTS"); shots != "" {
		name := strings.TrimSuffix(filepath.Base(page), ".html") + ".jpg"
		if err := os.MkdirAll(shots, 0o755); err == nil {
			_ = os.WriteFile(filepath.Join(shots, name), shot, 0o644)
		}
	}
	if len(plots) < 8 {
		t.Errorf("%s: the browser found %d plots, want at least 8", page, len(plots))
	}
	for _, p := range plots {
		// A series of one point (the ramp has one level) is a marker on a
		// path of no extent; a longer one must be drawn as a line.
		lines := p.Points > p.Series
		if p.Points == 0 || p.Series == 0 || lines && p.Paths == 0 || p.Width < 200 || p.Height < 100 {
			t.Errorf("%s: plot %s is not drawn with data: %+v", page, p.ID, p)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(problems) > 0 {
		t.Errorf("%s logged %d problem(s):\n%s", page, len(problems), strings.Join(problems, "\n"))
	}
}
