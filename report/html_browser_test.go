package report

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

// browser finds Chromium: $LATLAB_CHROMIUM, else chromium on $PATH. The
// test skips without one; CI installs Debian's chromium so it runs there.
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

// plotInfo is what the page's script-free SVG looks like once laid out.
type plotInfo struct {
	ID     string  `json:"id"`
	Series int     `json:"series"`
	Points int     `json:"points"`
	Paths  int     `json:"paths"`  // series paths with a drawn outline
	Width  float64 `json:"width"`  // rendered size of the svg element
	Height float64 `json:"height"` //
	Data   float64 `json:"data"`   // summed rendered length of the series paths
}

// measurePlots runs in the page: for every svg.plot, its declared data and
// what the browser actually laid out.
const measurePlots = `Array.from(document.querySelectorAll("svg.plot")).map(svg => {
  const r = svg.getBoundingClientRect();
  const paths = Array.from(svg.querySelectorAll(".series"));
  let data = 0, drawn = 0;
  for (const p of paths) {
    let len = 0;
    try { len = p.getTotalLength ? p.getTotalLength() : 0 } catch (e) {}
    const b = p.getBBox();
    if (len > 0 || b.width > 0 || b.height > 0) drawn++;
    data += len;
  }
  return {id: svg.id, series: +svg.dataset.series, points: +svg.dataset.points, paths: drawn,
          width: r.width, height: r.height, data: data};
})`

// TestHTMLInBrowser opens the rich fixture's report in headless Chromium:
// every plot must be laid out with data drawn, and the page must log no
// error. It saves a screenshot of the whole page and of each section in
// $LATLAB_SCREENSHOTS, else in a temporary folder.
func TestHTMLInBrowser(t *testing.T) {
	exe := browser(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	if err := os.WriteFile(page, writeRichHTML(t, HTMLOptions{}), 0o644); err != nil {
		t.Fatal(err)
	}
	shots := os.Getenv("LATLAB_SCREENSHOTS")
	if shots == "" {
		shots = dir
	} else if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}

	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.UserDataDir(filepath.Join(dir, "profile")), chromedp.WindowSize(1400, 1000),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-default-browser-check", true),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
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
	if _, err := chromedp.Call(bctx, runtime.Enable, cdp.Empty{}); err != nil {
		t.Fatalf("chromium %s: %v", exe, err)
	}
	if _, err := chromedp.Call(bctx, log.Enable, cdp.Empty{}); err != nil {
		t.Fatalf("chromium %s: %v", exe, err)
	}
	if err := chromedp.Do(bctx, chromedp.Navigate("file://"+page), chromedp.WaitVisible(chromedp.CSS("footer"))); err != nil {
		t.Fatalf("opening the report: %v", err)
	}
	plots, err := chromedp.Run(bctx, chromedp.Evaluate[[]plotInfo](measurePlots))
	if err != nil {
		t.Fatalf("measuring the plots: %v", err)
	}
	sections, err := chromedp.Run(bctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("section")).map(s => s.id)`))
	if err != nil {
		t.Fatal(err)
	}
	full, err := chromedp.Run(bctx, chromedp.FullScreenshot(80))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if err := os.WriteFile(filepath.Join(shots, "report.jpg"), full, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, id := range sections {
		shot, err := chromedp.Run(bctx, chromedp.Screenshot(chromedp.CSS("#"+id)))
		if err != nil {
			t.Errorf("screenshot of section %s: %v", id, err)
			continue
		}
		if err := os.WriteFile(filepath.Join(shots, "section-"+id+".png"), shot, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("screenshots in %s", shots)

	if len(plots) < 20 {
		t.Errorf("the browser found %d plots; want at least 20", len(plots))
	}
	for _, p := range plots {
		if p.Points == 0 || p.Series == 0 || p.Paths == 0 || p.Data <= 0 || p.Width < 200 || p.Height < 100 {
			t.Errorf("plot %s is not rendered with data: %+v", p.ID, p)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(problems) > 0 {
		t.Errorf("the page logged %d problem(s):\n%s", len(problems), strings.Join(problems, "\n"))
	}
}
