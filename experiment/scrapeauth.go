package experiment

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/latlab/latlab/spec"

	"github.com/latlab/latlab/load"
	"github.com/latlab/latlab/probe"
)

// urlScraper returns the probe scraping the metrics probe's URLs with its
// bearer token and CA, for its families. The files are read when the probe
// starts; one that cannot be read fails the probe: each URL gets an up
// point of 0 whose error names the field and file, and the run's log says
// so.
func (r *Runner) urlScraper(m *spec.Metrics) probeFunc {
	return func(ctx context.Context, start time.Time, emit func([]probe.Point)) error {
		client, err := scrapeClient(m.TokenFile, m.CACert)
		if err != nil {
			var down []probe.Point
			for _, u := range m.URLs {
				down = append(down, probe.Point{Probe: "metrics", Series: "up", T: time.Since(start),
					Labels: map[string]string{"url": u, "error": err.Error()}})
			}
			emit(down)
			return err
		}
		s := &probe.Scraper{URLs: m.URLs, Interval: m.Interval, Window: m.Window, Client: client, Families: m.Families}
		return s.Run(ctx, start, emit)
	}
}

// scrapeClient returns a client that sends the bearer token in tokenFile
// (none when "") and trusts the roots in caFile (the system's when "").
func scrapeClient(tokenFile, caFile string) (*http.Client, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil
	if caFile != "" {
		cfg, err := load.TLSFiles{CACert: caFile}.Config()
		if err != nil {
			return nil, fmt.Errorf("probes.metrics.cacert: %w", err)
		}
		tr.TLSClientConfig = cfg
	}
	var rt http.RoundTripper = tr
	if tokenFile != "" {
		data, err := os.ReadFile(tokenFile)
		if err != nil {
			return nil, fmt.Errorf("probes.metrics.token_file: %w", err)
		}
		token := strings.TrimRight(string(data), "\r\n")
		if token == "" || strings.ContainsAny(token, "\r\n") {
			return nil, fmt.Errorf("probes.metrics.token_file: %s holds no one-line token", tokenFile)
		}
		rt = bearer{token: "Bearer " + token, next: tr}
	}
	return &http.Client{Transport: rt}, nil
}

// bearer adds an Authorization header to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", b.token)
	return b.next.RoundTrip(req)
}
