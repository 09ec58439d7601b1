package demo

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

//go:embed files
var files embed.FS

// Files returns the demo's inputs as Run writes them into its folder: the
// experiment specs (demo.yaml and ramp.yaml, demo-quick.yaml and
// ramp-quick.yaml), the topologies they name under graphs/, and the
// requests, users.txt.
func Files() fs.FS {
	sub, _ := fs.Sub(files, "files") // fails only on an invalid name
	return sub
}

// The specs of each form of the demo, as named in Files.
const (
	sweepSpec      = "demo.yaml"
	rampSpec       = "ramp.yaml"
	quickSweepSpec = "demo-quick.yaml"
	quickRampSpec  = "ramp-quick.yaml"
)

// writeFiles writes every file of Files into dir, replacing what is there
// under the same names: the demo's own files are its, and running it again
// must run the same study to resume it.
func writeFiles(dir string) error {
	return fs.WalkDir(Files(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(path))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := fs.ReadFile(Files(), path)
		if err != nil {
			return err
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return fmt.Errorf("writing the demo's files: %w", err)
		}
		return nil
	})
}
