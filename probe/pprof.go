package probe

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/pprof/profile"
)

// topFuncs is how many functions a Profile keeps.
const topFuncs = 20

// maxProfileBytes bounds a profile's body.
const maxProfileBytes = 256 << 20

// Profile is a profile captured from a target's /debug/pprof.
type Profile struct {
	// Kind is "cpu" or "heap".
	Kind string
	// URL is where the profile came from.
	URL string
	// Raw is the profile as served (gzipped protobuf): store it whole and
	// `go tool pprof` reads it later.
	Raw []byte
	// SampleType and Unit name the profile's main sample type, the one the
	// numbers below count: cpu/nanoseconds for a CPU profile, inuse_space/bytes
	// for a heap profile.
	SampleType, Unit string
	// Total is the main sample type summed over all samples.
	Total int64
	// Top holds up to 20 functions, most Flat first (then most Cum, then
	// by name), as `pprof -top` lists them.
	Top []Func
}

// Func is one function's share of a Profile, in the profile's Unit.
type Func struct {
	Name string
	// Flat is spent in the function itself.
	Flat int64
	// Cum is spent in it and in what it called; recursion counts once.
	Cum int64
}

// CaptureProfile fetches a profile from the net/http/pprof handlers under
// baseURL (http://host:port, with or without /debug/pprof): kind "cpu"
// profiles for d, rounded up to whole seconds, at least one; kind "heap"
// takes the heap profile and ignores d. It blocks for the profile's
// duration, bounded by ctx. Errors name the URL: a 404 (pprof not mounted),
// a timeout, a body that is not a profile.
func CaptureProfile(ctx context.Context, baseURL, kind string, d time.Duration) (*Profile, error) {
	return CaptureProfileWith(ctx, nil, baseURL, kind, d)
}

// CaptureProfileWith is CaptureProfile with client, such as one that
// goes through a Kubernetes API server's proxy with its credentials; nil
// means http.DefaultClient.
func CaptureProfileWith(ctx context.Context, client *http.Client, baseURL, kind string, d time.Duration) (*Profile, error) {
	base := strings.TrimSuffix(baseURL, "/")
	if !strings.HasSuffix(base, "/debug/pprof") {
		base += "/debug/pprof"
	}
	var target string
	switch kind {
	case "cpu":
		seconds := max(1, int64(math.Ceil(d.Seconds())))
		target = base + "/profile?seconds=" + strconv.FormatInt(seconds, 10)
		d = time.Duration(seconds) * time.Second
	case "heap":
		target = base + "/heap"
		d = 0
	default:
		return nil, fmt.Errorf("capturing profile from %s: kind %q is neither cpu nor heap", baseURL, kind)
	}
	raw, err := fetchProfile(ctx, client, target, d)
	if err != nil {
		return nil, fmt.Errorf("capturing %s profile from %s: %w", kind, target, err)
	}
	p, err := profile.ParseData(raw)
	if err != nil {
		return nil, fmt.Errorf("capturing %s profile from %s: %w", kind, target, err)
	}
	prof := &Profile{Kind: kind, URL: target, Raw: raw}
	summarize(prof, p)
	return prof, nil
}

// fetchProfile GETs a profile that takes d to record, allowing 30 s more
// for the transfer unless ctx is tighter.
func fetchProfile(ctx context.Context, client *http.Client, target string, d time.Duration) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, d+30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, err
	}
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err // it repeats the URL
		}
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxProfileBytes))
	if err != nil {
		return nil, fmt.Errorf("reading: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		msg := strings.TrimSpace(string(body[:min(len(body), 200)]))
		if resp.StatusCode == http.StatusNotFound {
			msg += " (is net/http/pprof mounted?)"
		}
		return nil, fmt.Errorf("%s: %s", resp.Status, msg)
	}
	return body, nil
}

// summarize fills in the main sample type, total and top functions of p.
func summarize(prof *Profile, p *profile.Profile) {
	if len(p.SampleType) == 0 {
		return
	}
	// pprof's own choice: the declared default, else the last sample type.
	idx := len(p.SampleType) - 1
	for i, st := range p.SampleType {
		if st.Type == p.DefaultSampleType {
			idx = i
		}
	}
	prof.SampleType, prof.Unit = p.SampleType[idx].Type, p.SampleType[idx].Unit

	flat, cum := map[string]int64{}, map[string]int64{}
	seen := map[string]bool{}
	for _, s := range p.Sample {
		if idx >= len(s.Value) {
			continue
		}
		v := s.Value[idx]
		prof.Total += v
		clear(seen)
		for i, loc := range s.Location {
			names := locationNames(loc)
			if i == 0 && len(names) > 0 {
				flat[names[0]] += v // the innermost frame, inlined or not
			}
			for _, name := range names {
				if !seen[name] {
					seen[name] = true
					cum[name] += v
				}
			}
		}
	}
	for name, c := range cum {
		prof.Top = append(prof.Top, Func{Name: name, Flat: flat[name], Cum: c})
	}
	slices.SortFunc(prof.Top, func(a, b Func) int {
		return cmp.Or(cmp.Compare(b.Flat, a.Flat), cmp.Compare(b.Cum, a.Cum), strings.Compare(a.Name, b.Name))
	})
	prof.Top = prof.Top[:min(len(prof.Top), topFuncs)]
}

// locationNames lists the functions of a location, innermost (inlined) first;
// an unsymbolized location is named by its address.
func locationNames(loc *profile.Location) []string {
	if len(loc.Line) == 0 {
		return []string{"0x" + strconv.FormatUint(loc.Address, 16)}
	}
	names := make([]string, 0, len(loc.Line))
	for _, line := range loc.Line {
		if line.Function != nil {
			names = append(names, line.Function.Name)
		}
	}
	return names
}
