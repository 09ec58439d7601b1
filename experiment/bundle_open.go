package experiment

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

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
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var j bundleJSON
	if err := dec.Decode(&j); err != nil {
		return fmt.Errorf("reading bundle: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("reading bundle: data after its JSON object")
	}
	switch {
	case j.Format == 0:
		return errors.New("reading bundle: no format: not a latlab trial bundle")
	case j.Format != BundleFormat:
		return fmt.Errorf("reading bundle: format %d: this latlab reads format %d; run the same latlab on both sides", j.Format, BundleFormat)
	}
	*b = Bundle{Spec: j.Spec, Entry: j.Entry, Samples: j.Samples,
		Trial: Trial{Variant: j.Trial.Variant, Level: record.Level{Rate: j.Trial.Rate, Concurrency: j.Trial.Concurrency}, Rep: j.Trial.Rep, Position: j.Trial.Position}}
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
func (b *Bundle) open(dir string) (*Spec, error) {
	if err := b.check(); err != nil {
		return nil, err
	}
	var spec []byte
	for _, f := range b.Files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return nil, fmt.Errorf("writing %s: %w", f.Path, err)
		}
		if err := os.WriteFile(p, f.Data, 0o600); err != nil {
			return nil, fmt.Errorf("writing %s: %w", f.Path, err)
		}
		if f.Path == b.Spec {
			spec = f.Data
		}
	}
	return parseSpec(b.Spec, spec, filepath.Join(dir, filepath.Dir(filepath.FromSlash(b.Spec))), true)
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
func (b *Bundle) loads(s *Spec) (*load.Config, load.Config, error) {
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
