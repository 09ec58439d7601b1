package probe

import (
	"math"
	"strconv"
	"strings"

	dto "github.com/prometheus/client_model/go"
)

// ingest adds the histograms of one scrape to the windows: typed histograms,
// and the x_bucket{le} and x_count series of untyped text (no # TYPE line).
func (s *Scraper) ingest(t int64, instance string, families []*dto.MetricFamily) {
	type loose struct {
		family  string
		labels  map[string]string
		buckets []Bucket
		count   float64
	}
	var untyped map[string]*loose
	find := func(family string, m *dto.Metric) *loose {
		labels := targetLabels(m.GetLabel(), instance, "le")
		key := labelsKey(family, labels)
		if untyped == nil {
			untyped = map[string]*loose{}
		}
		if untyped[key] == nil {
			untyped[key] = &loose{family: family, labels: labels, count: -1}
		}
		return untyped[key]
	}
	for _, mf := range families {
		name := mf.GetName()
		switch {
		case mf.GetType() == dto.MetricType_HISTOGRAM:
			for _, m := range mf.GetMetric() {
				if h := m.GetHistogram(); h != nil {
					s.win.add(t, name, targetLabels(m.GetLabel(), instance, ""), classicBuckets(h), sampleCount(h))
				}
			}
		case mf.GetType() != dto.MetricType_UNTYPED:
		case strings.HasSuffix(name, "_bucket"):
			for _, m := range mf.GetMetric() {
				if le, ok := labelValue(m.GetLabel(), "le"); ok {
					if bound, err := strconv.ParseFloat(le, 64); err == nil {
						l := find(strings.TrimSuffix(name, "_bucket"), m)
						l.buckets = append(l.buckets, Bucket{bound, m.GetUntyped().GetValue()})
					}
				}
			}
		case strings.HasSuffix(name, "_count"):
			for _, m := range mf.GetMetric() {
				find(strings.TrimSuffix(name, "_count"), m).count = m.GetUntyped().GetValue()
			}
		}
	}
	for _, l := range untyped {
		if len(l.buckets) > 0 {
			s.win.add(t, l.family, l.labels, l.buckets, l.count)
		}
	}
}

// classicBuckets returns h's cumulative buckets with the +Inf bucket, which
// the protobuf format leaves implicit. A histogram with only native buckets
// has none.
func classicBuckets(h *dto.Histogram) []Bucket {
	if len(h.GetBucket()) == 0 {
		return nil
	}
	b := make([]Bucket, 0, len(h.GetBucket())+1)
	for _, x := range h.GetBucket() {
		n := x.GetCumulativeCountFloat()
		if n == 0 {
			n = float64(x.GetCumulativeCount())
		}
		b = append(b, Bucket{x.GetUpperBound(), n})
	}
	if !math.IsInf(b[len(b)-1].UpperBound, +1) {
		b = append(b, Bucket{math.Inf(+1), sampleCount(h)})
	}
	return b
}

func sampleCount(h *dto.Histogram) float64 {
	if n := h.GetSampleCountFloat(); n != 0 {
		return n
	}
	return float64(h.GetSampleCount())
}

// targetLabels turns a metric's labels into a map with the instance label
// set as Prometheus would, leaving out skip.
func targetLabels(pairs []*dto.LabelPair, instance, skip string) map[string]string {
	labels := make(map[string]string, len(pairs)+1)
	for _, p := range pairs {
		name := p.GetName()
		switch name {
		case skip:
			continue
		case "instance":
			name = "exported_instance"
		}
		labels[name] = p.GetValue()
	}
	labels["instance"] = instance
	return labels
}

func labelValue(pairs []*dto.LabelPair, name string) (string, bool) {
	for _, p := range pairs {
		if p.GetName() == name {
			return p.GetValue(), true
		}
	}
	return "", false
}
