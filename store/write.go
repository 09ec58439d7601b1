package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/latlab/latlab/record"
)

// quantile is q of h for a nullable column: NULL when h holds too few
// samples for it (record.Quantile).
func quantile(h interface {
	ValueAtPercentile(float64) int64
	TotalCount() int64
}, q float64) sql.NullInt64 {
	v, ok := record.Quantile(h, q)
	return sql.NullInt64{Int64: int64(v), Valid: ok}
}

// encode returns h in HdrHistogram's V2 compressed encoding.
func encode(h interface{ EncodeV2() ([]byte, error) }) ([]byte, error) {
	b, err := h.EncodeV2()
	if err != nil {
		return nil, fmt.Errorf("encoding histogram: %w", err)
	}
	return b, nil
}

// insertIntervals writes r's series as phase, shifting its offsets by shift
// so that they count from the run's origin.
func insertIntervals(ctx context.Context, tx *sql.Tx, runID int64, phase Phase, r *record.Result, shift time.Duration) error {
	if len(r.Intervals) == 0 {
		return nil
	}
	st, err := tx.PrepareContext(ctx, `INSERT INTO intervals (run_id, phase, idx, start_ns, end_ns,
		sent, completed, errors, unsuccessful, in_flight_mean, in_flight_max, p50_ns, p90_ns, p99_ns,
		latency_hdr, service_hdr) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer discard(st)
	for i, in := range r.Intervals {
		// The kept encodings are stored as they are; the latency is
		// decoded only for its quantiles.
		h, err := in.Latency.Histogram()
		if err != nil {
			return fmt.Errorf("interval %d latency: %w", i, err)
		}
		lat, err := in.Latency.Encoded()
		if err != nil {
			return fmt.Errorf("interval %d latency: %w", i, err)
		}
		svc, err := in.Service.Encoded()
		if err != nil {
			return fmt.Errorf("interval %d service time: %w", i, err)
		}
		_, err = st.ExecContext(ctx, runID, string(phase), i, int64(shift+in.Start), int64(shift+in.End),
			in.Sent, in.Completed, in.Errors, in.Unsuccessful, in.InFlightMean, in.InFlightMax,
			quantile(h, 0.5), quantile(h, 0.9), quantile(h, 0.99), lat, svc)
		if err != nil {
			return fmt.Errorf("interval %d: %w", i, err)
		}
	}
	return nil
}

// insertTotals writes r's whole-phase histograms, skipping absent ones.
func insertTotals(ctx context.Context, tx *sql.Tx, runID int64, phase Phase, r *record.Result) error {
	for _, k := range []struct {
		kind string
		h    *hdr.Histogram
	}{{"latency", r.Latency}, {"service", r.Service}, {"lag", r.Lag}, {"connect", r.Connect}, {"tls", r.TLS}} {
		if k.h == nil {
			continue
		}
		b, err := encode(k.h)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO histograms (run_id, phase, kind, count, hdr)
			VALUES (?, ?, ?, ?, ?)`, runID, string(phase), k.kind, k.h.TotalCount(), b)
		if err != nil {
			return fmt.Errorf("%s histogram: %w", k.kind, err)
		}
	}
	return nil
}

func insertSteps(ctx context.Context, tx *sql.Tx, runID int64, steps []record.StepStats) error {
	for i, s := range steps {
		if s.Latency == nil {
			s.Latency = record.NewHistogram()
		}
		if s.Service == nil {
			s.Service = record.NewHistogram()
		}
		codes, err := json.Marshal(nonNil(s.Codes))
		if err != nil {
			return err
		}
		errs, err := json.Marshal(nonNil(s.Errors))
		if err != nil {
			return err
		}
		lat, err := encode(s.Latency)
		if err != nil {
			return err
		}
		svc, err := encode(s.Service)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO steps (run_id, idx, name, requests, errors,
			unsuccessful, status_codes, error_counts, latency_hdr, service_hdr)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, runID, i, s.Name, s.Requests, s.ErrorsTotal,
			s.Unsuccessful, string(codes), string(errs), lat, svc)
		if err != nil {
			return fmt.Errorf("scenario step %d: %w", i, err)
		}
	}
	return nil
}

func nonNil[K comparable, V any](m map[K]V) map[K]V {
	if m == nil {
		return map[K]V{}
	}
	return m
}

// sampleCols is the number of parameters of one sample row, run_id aside.
const sampleCols = 9

// errorValue maps an error class to its samples.error value, boxed once:
// NULL for a response, the class name otherwise.
var errorValue = func() (v [256]any) {
	for i := 1; i < len(v); i++ {
		v[i] = record.ErrorClass(i).String()
	}
	return v
}()

// sampleRows is how samples are written: many to an INSERT.
var sampleRows = batchInsert{
	head: `INSERT INTO samples (run_id, seq, intended_ns, sent_ns, done_ns, code,
		bytes_in, bytes_out, error, step) VALUES `,
	cols: sampleCols,
	what: "samples",
}

// insertSamples writes raw in batches of rowBatch rows.
func insertSamples(ctx context.Context, tx *sql.Tx, runID int64, raw []record.Raw) error {
	return sampleRows.insert(ctx, tx, runID, len(raw), func(args []any, off, n int) ([]any, error) {
		for i := off; i < off+n; i++ {
			s := &raw[i]
			args = append(args, int64(i), int64(s.Intended), int64(s.Sent), int64(s.Done),
				int64(s.Code), s.BytesIn, int64(s.BytesOut), errorValue[s.Error], int64(s.Step))
		}
		return args, nil
	})
}
