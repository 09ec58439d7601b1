package remote

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/latlab/latlab/spec"

	"github.com/latlab/latlab/load"
	"github.com/latlab/latlab/record"
)

// BundleFormat is the version of a bundle's JSON, which an agent checks: a
// change of its meaning takes a new one.
const BundleFormat = 1

// bundleJSON is a Bundle as it travels.
type bundleJSON struct {
	Format  int              `json:"format"`
	Spec    string           `json:"spec"`
	Files   []bundleFileJSON `json:"files"`
	Trial   trialJSON        `json:"trial"`
	Entry   string           `json:"entry,omitempty"`
	Samples int64            `json:"samples"`
	StartAt *time.Time       `json:"start_at,omitempty"`
	Shard   *shardJSON       `json:"shard,omitempty"`
}

type shardJSON struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

type bundleFileJSON struct {
	Path string `json:"path"`
	Data []byte `json:"data"` // base64
}

type trialJSON struct {
	Variant     string  `json:"variant"`
	Rate        float64 `json:"rate_per_second,omitempty"`
	Concurrency int     `json:"concurrency,omitempty"`
	Rep         int     `json:"rep"`
	Position    int     `json:"position"`
}

// MarshalJSON writes b as a JSON object: format (BundleFormat), spec,
// files (each a path and its data in base64), trial (variant,
// rate_per_second, concurrency, rep, position), entry, samples,
// start_at (RFC 3339) and shard (index and count).
func (b *Bundle) MarshalJSON() ([]byte, error) {
	j := bundleJSON{Format: BundleFormat, Spec: b.Spec, Entry: b.Entry, Samples: b.Samples,
		Trial: trialJSON{Variant: b.Trial.Variant, Rate: b.Trial.Rate, Concurrency: b.Trial.Concurrency, Rep: b.Trial.Rep, Position: b.Trial.Position}}
	if !b.StartAt.IsZero() {
		j.StartAt = &b.StartAt
	}
	if b.Shard.Count > 0 {
		j.Shard = &shardJSON{Index: b.Shard.Index, Count: b.Shard.Count}
	}
	j.Files = make([]bundleFileJSON, len(b.Files))
	for i, f := range b.Files {
		j.Files[i] = bundleFileJSON(f)
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes, strictly: an unknown
// field or another format is an error.
func (b *Bundle) UnmarshalJSON(data []byte) error {
	// json.Unmarshal reads data where it lies, where a json.Decoder would
	// copy it into a buffer of its own, growing by doubling: a bundle of
	// 80 MiB then took 250 MB.
	if err := strictFields(data); err != nil {
		return fmt.Errorf("reading bundle: %w", err)
	}
	var j bundleJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return fmt.Errorf("reading bundle: %w", err)
	}
	switch {
	case j.Format == 0:
		return errors.New("reading bundle: no format: not a latlab trial bundle")
	case j.Format != BundleFormat:
		return fmt.Errorf("reading bundle: format %d: this latlab reads format %d; run the same latlab on both sides", j.Format, BundleFormat)
	}
	*b = Bundle{Spec: j.Spec, Entry: j.Entry, Samples: j.Samples,
		Trial: spec.Trial{Variant: j.Trial.Variant, Level: record.Level{Rate: j.Trial.Rate, Concurrency: j.Trial.Concurrency}, Rep: j.Trial.Rep, Position: j.Trial.Position}}
	if j.StartAt != nil {
		b.StartAt = *j.StartAt
	}
	if j.Shard != nil {
		if j.Shard.Count < 1 || j.Shard.Index < 0 || j.Shard.Index >= j.Shard.Count {
			return fmt.Errorf("reading bundle: shard %d of %d: want a count of at least 1 and an index below it", j.Shard.Index, j.Shard.Count)
		}
		b.Shard = BundleShard(*j.Shard)
	}
	b.Files = make([]BundleFile, len(j.Files))
	for i, f := range j.Files {
		b.Files[i] = BundleFile(f)
	}
	return nil
}

// skipJSON takes any JSON value, and keeps nothing of it.
type skipJSON struct{}

func (*skipJSON) UnmarshalJSON([]byte) error { return nil }

// strictFields refuses a field that a bundle's JSON has no place for, as
// a json.Decoder that disallows unknown fields does, without decoding
// (and copying) the values.
func strictFields(data []byte) error {
	var top map[string]skipJSON
	if err := json.Unmarshal(data, &top); err != nil {
		return err
	}
	var nested struct {
		Files []map[string]skipJSON `json:"files"`
		Trial map[string]skipJSON   `json:"trial"`
		Shard map[string]skipJSON   `json:"shard"`
	}
	if err := json.Unmarshal(data, &nested); err != nil {
		return err
	}
	check := func(keys map[string]skipJSON, of any) error {
		known := jsonFields(reflect.TypeOf(of))
		for _, k := range slices.Sorted(maps.Keys(keys)) {
			if !slices.Contains(known, k) {
				return fmt.Errorf("json: unknown field %q", k)
			}
		}
		return nil
	}
	errs := []error{check(top, bundleJSON{}), check(nested.Trial, trialJSON{}), check(nested.Shard, shardJSON{})}
	for _, f := range nested.Files {
		errs = append(errs, check(f, bundleFileJSON{}))
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// jsonFields lists the JSON names of struct type t's fields.
func jsonFields(t reflect.Type) []string {
	var out []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		out = append(out, name)
	}
	return out
}

// check refuses a bundle an agent cannot run, naming every problem.
func (b *Bundle) check() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if len(b.Files) > maxBundleFiles {
		bad("%d files: a bundle carries at most %d", len(b.Files), maxBundleFiles)
	}
	seen := map[string]bool{}
	total := 0
	for i, f := range b.Files {
		switch {
		case !filepath.IsLocal(filepath.FromSlash(f.Path)) || path.Clean(f.Path) != f.Path || strings.Contains(f.Path, `\`):
			bad("files[%d]: %q is not a relative path inside the bundle's folder", i, f.Path)
		case seen[f.Path]:
			bad("files[%d]: %q twice", i, f.Path)
		}
		seen[f.Path] = true
		total += len(f.Data)
	}
	if total > maxBundleData {
		bad("files of %d MiB: a bundle carries at most %d MiB", total>>20, maxBundleData>>20)
	}
	switch {
	case b.Spec == "":
		bad("spec: no file named")
	case !seen[b.Spec]:
		bad("spec: %q is not among the files", b.Spec)
	}
	if b.Trial.Variant == "" {
		bad("trial: no variant")
	}
	if b.Samples < 0 {
		bad("samples: want 0 or more, got %d", b.Samples)
	}
	return errors.Join(errs...)
}

// open writes b's files under dir and parses its spec there, as an
// agent runs it: its commands are not checked, since an agent runs none.
// Errors name the spec by its path in the bundle.
func (b *Bundle) open(dir string) (*spec.Spec, error) {
	if err := b.check(); err != nil {
		return nil, err
	}
	var text []byte
	for _, f := range b.Files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return nil, fmt.Errorf("writing %s: %w", f.Path, err)
		}
		if err := os.WriteFile(p, f.Data, 0o600); err != nil {
			return nil, fmt.Errorf("writing %s: %w", f.Path, err)
		}
		if f.Path == b.Spec {
			text = f.Data
		}
	}
	return spec.ParseConfined(b.Spec, text, filepath.Join(dir, filepath.Dir(filepath.FromSlash(b.Spec))), true, dir)
}

// Loads writes b's files under dir, parses its spec there and returns
// the warm-up (nil when the spec has none) and the measured load of its
// trial, exactly as an agent builds them before running them: a bundle
// made here can be checked before it is sent. The loads have read every
// file they need; dir may go once Loads returns.
func (b *Bundle) Loads(dir string) (*load.Config, load.Config, error) {
	s, err := b.open(dir)
	if err != nil {
		return nil, load.Config{}, err
	}
	return b.loads(s)
}

// loads returns the warm-up (nil when the spec has none) and the measured
// load of b's trial under s, built as Runner.trial builds them.
func (b *Bundle) loads(s *spec.Spec) (*load.Config, load.Config, error) {
	wcfg, warm, err := s.WarmupFor(b.Trial, b.Entry)
	if err != nil {
		return nil, load.Config{}, err
	}
	cfg, err := s.LoadFor(b.Trial, b.Entry)
	if err != nil {
		return nil, load.Config{}, err
	}
	cfg.KeepRaw = b.Samples
	if b.Shard.Count > 0 {
		sh := load.Shard{Index: b.Shard.Index, Count: b.Shard.Count}
		cfg.Shard, wcfg.Shard = sh, sh
	}
	if !warm {
		return nil, cfg, nil
	}
	return &wcfg, cfg, nil
}
