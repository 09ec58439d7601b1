package record

import (
	"fmt"
	"io"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// WriteHlog writes the run's per-interval latency and service-time
// histograms in the HdrHistogram interval log format (version 1.3), readable
// by HdrHistogram's own tools. Values are nanoseconds; the max column is in
// milliseconds, the format's default ratio. Latency lines carry the tag
// "latency", service-time lines "service".
func WriteHlog(w io.Writer, r *Result) error {
	lw := hdr.NewHistogramLogWriter(w)
	startMs := r.Start.UnixMilli()
	if err := lw.OutputComment("latlab attack interval log; values in nanoseconds"); err != nil {
		return fmt.Errorf("writing hlog: %w", err)
	}
	if err := lw.OutputLogFormatVersion(); err != nil {
		return fmt.Errorf("writing hlog: %w", err)
	}
	if err := lw.OutputStartTime(startMs); err != nil {
		return fmt.Errorf("writing hlog: %w", err)
	}
	if err := lw.OutputBaseTime(startMs); err != nil {
		return fmt.Errorf("writing hlog: %w", err)
	}
	lw.SetBaseTime(startMs)
	if err := lw.OutputLegend(); err != nil {
		return fmt.Errorf("writing hlog: %w", err)
	}
	for i, in := range r.Intervals {
		for _, k := range []struct {
			tag string
			h   Kept
		}{{"latency", in.Latency}, {"service", in.Service}} {
			h, err := k.h.Histogram()
			if err != nil {
				return fmt.Errorf("writing hlog: interval %d %s: %w", i, k.tag, err)
			}
			h.SetTag(k.tag)
			h.SetStartTimeMs(startMs + in.Start.Milliseconds())
			h.SetEndTimeMs(startMs + in.End.Milliseconds())
			if err := lw.OutputIntervalPackedHistogram(h); err != nil {
				return fmt.Errorf("writing hlog: %w", err)
			}
		}
	}
	return nil
}
