package main

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// The READMEs checked by TestReadmeReferences, from this package's folder:
// the two READMEs and every Markdown file under docs/.
var readmes = func() []string {
	docs, _ := filepath.Glob("../../docs/*.md")
	more, _ := filepath.Glob("../../docs/*/*.md")
	return append([]string{"../../README.md", "../../examples/README.md"}, append(docs, more...)...)
}()

var (
	// mdLink is a Markdown link: [text](target).
	mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	// codeSpan is inline code, `like this`.
	codeSpan = regexp.MustCompile("`([^`\n]+)`")
	// relPath is a relative path of at least two parts: dir/file.ext.
	relPath = regexp.MustCompile(`^(\.\.?/)*[\w.-]+(/[\w.-]+)+/?$`)
	// placeholder is a path part that stands for the reader's own, such as
	// examples/NAME.yaml.
	placeholder = regexp.MustCompile(`(^|/)(NAME|FILE|DIR|PATH)(\.|/|$)`)
	// mdFile is a Markdown file named in prose, such as DESIGN.md.
	mdFile = regexp.MustCompile(`(?:^|[\s(])((?:[\w.-]+/)*[\w-]+\.md)\b`)
)

// TestReadmeReferences checks that every file or folder the READMEs and
// the commands' help point at is in the repository: the targets of relative links, the paths in
// inline code (examples/graphs/chain.yaml, bench/peers.sh), every path
// under one of the repository's own top-level folders anywhere in the
// text (commands in code blocks too), and every Markdown file named. Each
// resolves from the README's folder or from the repository's root. Paths
// latlab writes (latlab-demo/...) and placeholders (examples/NAME.yaml)
// are not the repository's.
func TestReadmeReferences(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var top []string // the repository's top-level folders
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			top = append(top, regexp.QuoteMeta(e.Name()))
		}
	}
	// underTop is a path under a top-level folder, as a word of its own.
	underTop := regexp.MustCompile(`(?:^|[\s(\x60'"])((?:` + strings.Join(top, "|") + `)/[\w./-]*[\w/])`)
	texts := map[string][]byte{}
	for _, readme := range readmes {
		data, err := os.ReadFile(readme)
		if err != nil {
			t.Fatal(err)
		}
		texts[readme] = data
	}
	// Every command's help, as if it were a README at the root.
	var help func(c *cobra.Command)
	help = func(c *cobra.Command) {
		texts[c.CommandPath()+" --help"] = []byte(c.Long + "\n" + c.Example)
		for _, sub := range c.Commands() {
			help(sub)
		}
	}
	help(newRoot(io.Discard, io.Discard))
	for readme, data := range texts {
		dir := filepath.Dir(readme)
		if !strings.HasSuffix(readme, ".md") {
			dir = root
		}
		exists := func(ref string) bool {
			ref = strings.TrimSuffix(strings.SplitN(ref, "#", 2)[0], "/")
			for _, base := range []string{dir, root} {
				if _, err := os.Stat(filepath.Join(base, ref)); err == nil {
					return true
				}
			}
			return false
		}
		check := func(kind, ref string, line int) {
			if strings.HasPrefix(ref, "latlab-demo/") || strings.HasPrefix(ref, "./latlab-demo") || placeholder.MatchString(ref) {
				return // the demo's output, or the reader's file
			}
			if !exists(ref) {
				t.Errorf("%s:%d: %s %q is not in the repository", readme, line, kind, ref)
			}
		}
		for i, text := range strings.Split(string(data), "\n") {
			line := i + 1
			for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
				if target := m[1]; !strings.Contains(target, "://") && !strings.HasPrefix(target, "#") && !strings.HasPrefix(target, "mailto:") {
					check("link", target, line)
				}
			}
			for _, m := range codeSpan.FindAllStringSubmatch(text, -1) {
				if p := m[1]; relPath.MatchString(p) && (strings.Contains(filepath.Base(p), ".") || strings.HasPrefix(p, ".")) {
					check("path", p, line)
				}
			}
			for _, m := range underTop.FindAllStringSubmatch(text, -1) {
				check("path", m[1], line)
			}
			for _, m := range mdFile.FindAllStringSubmatch(text, -1) {
				check("file", m[1], line)
			}
		}
	}
}
