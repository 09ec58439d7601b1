package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/internal/textsafe"
	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/spec"
	"github.com/latlab/latlab/units"
)

// Attack writes res as text: rates, outcomes, percentiles of latency,
// service time and lag, the breakdown of service time (connect, TLS, wait,
// read), a compact latency histogram and, for scenarios, a table per step. target describes what was attacked.
func Attack(w io.Writer, res *record.Result, target string) error {
	sum, err := record.Summarize(res)
	if err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Target     %s\n", textsafe.Escape(target))
	fmt.Fprintf(&b, "Load       %s\n", loadLine(res))
	if res.Interrupted {
		b.WriteString("Status     interrupted: partial result\n")
	}
	fmt.Fprintf(&b, "Requests   sent %d, completed %d in %s", sum.Sent, sum.Requests, units.Duration(res.Duration()))
	if res.Unsent > 0 {
		fmt.Fprintf(&b, ", %d due but never sent", res.Unsent)
	}
	if res.Retries > 0 {
		fmt.Fprintf(&b, "; %d sent again on a new connection, the server having closed the kept-alive one", res.Retries)
	}
	if res.WarmupRequests > 0 {
		fmt.Fprintf(&b, " (after %d warm-up requests, not counted)", res.WarmupRequests)
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "Rate       %s sent", units.Rate(sum.Rate))
	if sum.TargetRate > 0 {
		fmt.Fprintf(&b, " of %s intended (%s)", units.Rate(sum.TargetRate), units.Percent(sum.Rate/sum.TargetRate, 1))
	}
	fmt.Fprintf(&b, ", throughput %s successful\n", units.Rate(sum.Throughput))
	fmt.Fprintf(&b, "Success    %s  codes %s\n", units.Percent(sum.SuccessRatio, 2), codes(res.Codes))
	fmt.Fprintf(&b, "Errors     %s\n", errorsLine(res))
	fmt.Fprintf(&b, "Bytes      in %s, out %s; transfer %s/s in, %s/s out\n", units.Bytes(sum.BytesIn), units.Bytes(sum.BytesOut),
		units.Bytes(int64(math.Round(sum.BytesInRate))), units.Bytes(int64(math.Round(sum.BytesOutRate))))
	if sum.MessagesSent > 0 || sum.MessagesRecv > 0 {
		fmt.Fprintf(&b, "Messages   sent %d, received %d (gRPC, every call's); %s received\n",
			sum.MessagesSent, sum.MessagesRecv, units.Rate(sum.MessagesInRate))
	}
	fmt.Fprintf(&b, "In flight  mean %.2f (time-weighted), max %d\n", sum.InFlight.Mean, sum.InFlight.Max)
	if res.Pool > 0 {
		fmt.Fprintf(&b, "Conns      %d opened before the load, %d during it\n", res.Pool, res.Connect.TotalCount())
	}
	b.WriteString("\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "\tsamples\tmin\tmean\tstdev\tp50\tp90\tp95\tp99\tp99.9\tmax\t")
	dist(tw, "latency (from intended send)", res.Latency)
	dist(tw, "service time (from actual send)", res.Service)
	dist(tw, "lag (send − intended)", res.Lag)
	tw.Flush()
	breakdownTable(&b, res)
	if len(res.StepStats) > 0 {
		b.WriteString("\nSteps\n")
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "step\trequests\tsuccess\tlatency p50\tp90\tp99\tmax\tservice p50\tp99\t")
		for _, st := range res.StepStats {
			ok := st.Requests - st.ErrorsTotal - st.Unsuccessful
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", textsafe.Escape(st.Name), st.Requests, pct(ok, st.Requests),
				q(st.Latency, 0.5), q(st.Latency, 0.9), q(st.Latency, 0.99), q(st.Latency, 1),
				q(st.Service, 0.5), q(st.Service, 0.99))
		}
		tw.Flush()
	}
	if res.Latency.TotalCount() > 0 {
		b.WriteString("\nLatency histogram\n")
		histogram(&b, res.Latency)
	}
	if warns := warnings(res); len(warns) > 0 {
		for _, warn := range warns {
			fmt.Fprintf(&b, "\nwarning: %s", textsafe.Escape(warn))
		}
		b.WriteString("\n")
	}
	_, err = io.WriteString(w, textsafe.Layout(b.String()))
	return err
}

func loadLine(res *record.Result) string {
	s := modeLine(res)
	switch {
	case res.Threads == 1:
		s += "; 1 thread"
	case res.Threads > 1:
		s += fmt.Sprintf("; %d threads", res.Threads)
	}
	return s
}

// modeLine describes the load's model.
func modeLine(res *record.Result) string {
	switch res.Mode {
	case "open":
		return fmt.Sprintf("open loop, %s intended, at most %d in flight", units.Rate(res.TargetRate), res.Concurrency)
	case "closed":
		return fmt.Sprintf("closed loop, %d workers", res.Concurrency)
	case "ramp":
		return fmt.Sprintf("closed loop ramped up to %d workers", res.Concurrency)
	case "sequential":
		return "sequential, one request at a time on one connection"
	}
	return res.Mode
}

// warnings says when the numbers may describe the generator, not the target.
func warnings(res *record.Result) []string {
	var out []string
	// As latlab run flags generator_saturated, with its default bounds.
	b := analysis.FellBehind(res, spec.DefaultMinAchieved, spec.DefaultMaxLagP99)
	if b.Short {
		out = append(out, fmt.Sprintf("sent %s, %s of the intended %s: the generator or the in-flight cap held requests back",
			units.Rate(b.Achieved*res.TargetRate), units.Percent(b.Achieved, 1), units.Rate(res.TargetRate)))
	}
	if res.Unsent > 0 {
		out = append(out, fmt.Sprintf("%d requests were due before the end but never sent: the generator was behind its schedule, or every one of the %d allowed in flight was busy", res.Unsent, res.Concurrency))
	}
	if b.Late {
		out = append(out, fmt.Sprintf("lag p99 is %s (over %s): requests left late, and latency counts that wait", units.Duration(b.LagP99), units.Duration(spec.DefaultMaxLagP99)))
	}
	if w := failedWarning(res); w != "" {
		out = append(out, w)
	}
	return out
}

func codes(m map[int]int64) string {
	if len(m) == 0 {
		return "none"
	}
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = record.CodeName(k) + ":" + strconv.FormatInt(m[k], 10)
	}
	return strings.Join(parts, " ")
}

func errorsLine(res *record.Result) string {
	var parts []string
	for _, c := range record.ErrorClasses() {
		n := res.Errors[c.String()]
		if n == 0 {
			continue
		}
		s := fmt.Sprintf("%s %d", c, n)
		if ex := res.ErrorExample[c.String()]; ex != "" {
			s += fmt.Sprintf(" (first: %s)", textsafe.Escape(ex))
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "; ")
}

func pct(a, b int64) string {
	if b == 0 {
		return "n/a"
	}
	return units.Percent(float64(a)/float64(b), 2)
}

// q formats quantile qv of h: n/a without enough samples, "~" before a
// value read from few of them.
func q(h record.HistogramView, qv float64) string {
	v, ok := record.Quantile(h, qv)
	if !ok {
		return "n/a"
	}
	if record.LowConfidence(h.TotalCount(), qv) {
		return "~" + units.Duration(v)
	}
	return units.Duration(v)
}

func dist(w io.Writer, name string, h record.HistogramView) {
	n := h.TotalCount()
	if n == 0 {
		fmt.Fprintf(w, "%s\t0\t\t\t\t\t\t\t\t\t\t\n", name)
		return
	}
	fmt.Fprintf(w, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", name, n,
		units.Duration(time.Duration(h.Min())), units.Duration(time.Duration(h.Mean())), units.Duration(time.Duration(h.StdDev())),
		q(h, 0.5), q(h, 0.9), q(h, 0.95), q(h, 0.99), q(h, 0.999), units.Duration(time.Duration(h.Max())))
}

// breakdownTable writes where service time went, as hey splits it:
// opening new connections, then per response the wait for its first byte
// after the request's last and the read from there to its last byte, and
// for gRPC server streams the gaps between replies that make up the read.
// A phase nothing measured is left out, and the table with it.
func breakdownTable(b *strings.Builder, res *record.Result) {
	type row struct {
		name string
		h    *hdr.Histogram
	}
	rows := []row{
		{"connect (new connections)", res.Connect},
		{"TLS handshake", res.TLS},
		{"wait (request sent → first byte)", res.Wait},
		{"read (first byte → last byte)", res.Read},
		{"reply gap (reply → next reply)", res.ReplyGap},
	}
	rows = slices.DeleteFunc(rows, func(r row) bool { return r.h == nil || r.h.TotalCount() == 0 })
	if len(rows) == 0 {
		return
	}
	b.WriteString("\nService time breakdown\n")
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "\tsamples\tmean\tp50\tp99\tmax\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t\n", r.name, r.h.TotalCount(),
			units.Duration(time.Duration(r.h.Mean())), q(r.h, 0.5), q(r.h, 0.99), units.Duration(time.Duration(r.h.Max())))
	}
	tw.Flush()
}

// histogram draws h as up to 12 rows of log-spaced bins from its min to
// its max, each with its share of samples and a bar.
func histogram(b *strings.Builder, h *hdr.Histogram) {
	lo, hi := float64(h.Min()), float64(h.Max())
	const rows = 12
	n := rows
	if hi <= lo*1.05 {
		n = 1
	}
	counts := make([]int64, n)
	ratio := math.Pow(hi/lo, 1/float64(n))
	for _, bar := range h.Distribution() {
		if bar.Count == 0 {
			continue
		}
		i := 0
		if n > 1 {
			i = int(math.Log(float64(bar.From)/lo) / math.Log(ratio))
		}
		counts[min(max(i, 0), n-1)] += bar.Count
	}
	total := float64(h.TotalCount())
	tw := tabwriter.NewWriter(b, 0, 0, 1, ' ', 0)
	for i, c := range counts {
		from := time.Duration(lo * math.Pow(ratio, float64(i)))
		to := time.Duration(lo * math.Pow(ratio, float64(i+1)))
		share := float64(c) / total
		fmt.Fprintf(tw, "  %s\t– %s\t%7s\t%s\n", units.Duration(from), units.Duration(to), units.Percent(share, 2), strings.Repeat("█", int(math.Round(share*40))))
	}
	tw.Flush()
}
