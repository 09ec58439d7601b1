// mvpkg moves files of one package into other packages, exporting and
// qualifying what crosses. Usage: mvpkg DIR MODPATH spec:f1,f2 remote:f3 ...
// Files not named stay. Writes files in place (package clause changed,
// idents rewritten); the caller moves them. Prints moved exported names.
package main

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
)

type edit struct {
	off, end int
	text     string
}

func main() {
	dir, mod := os.Args[1], os.Args[2]
	group := map[string]string{}
	for _, a := range os.Args[3:] {
		g, files, _ := strings.Cut(a, ":")
		for _, f := range strings.Split(files, ",") {
			group[f] = g
		}
	}
	override := map[string]string{}
	if o := os.Getenv("OVERRIDE"); o != "" {
		for _, kv := range strings.Split(o, ",") {
			k, v, _ := strings.Cut(kv, "=")
			override[k] = v
		}
	}
	stay := filepath.Base(dir)
	fset := token.NewFileSet()
	matches, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	var files []*ast.File
	src := map[string][]byte{}
	for _, m := range matches {
		data, _ := os.ReadFile(m)
		f, err := parser.ParseFile(fset, m, data, parser.ParseComments)
		if err != nil {
			panic(err)
		}
		if strings.HasSuffix(f.Name.Name, "_test") {
			continue
		}
		files = append(files, f)
		src[m] = data
	}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{}}
	pkg, err := conf.Check("x", fset, files, info)
	if err != nil {
		panic(err)
	}
	pkgOf := func(pos token.Pos) string {
		b := filepath.Base(fset.Position(pos).Filename)
		if b2, ok := strings.CutSuffix(b, "_test.go"); ok {
			_ = b2
		}
		if g, ok := group[b]; ok {
			return g
		}
		return stay
	}
	isPkgLevel := func(o types.Object) bool { return o.Parent() == pkg.Scope() }
	isMember := func(o types.Object) bool {
		switch o := o.(type) {
		case *types.Var:
			return o.IsField()
		case *types.Func:
			return o.Type().(*types.Signature).Recv() != nil
		}
		return false
	}
	export := map[types.Object]string{}
	type qual struct {
		id  *ast.Ident
		pkg string
	}
	var quals []qual
	mark := func(o types.Object) {
		if ast.IsExported(o.Name()) {
			return
		}
		n := override[o.Name()]
		if n == "" {
			r := []rune(o.Name())
			r[0] = unicode.ToUpper(r[0])
			n = string(r)
		}
		export[o] = n
	}
	for id, o := range info.Uses {
		if o.Pkg() != pkg {
			continue
		}
		from, to := pkgOf(id.Pos()), pkgOf(o.Pos())
		if from == to {
			continue
		}
		if strings.HasSuffix(fset.Position(o.Pos()).Filename, "_test.go") {
			fmt.Fprintf(os.Stderr, "test helper: %s (%s) used in %s\n", o.Name(), fset.Position(o.Pos()), fset.Position(id.Pos()))
			continue
		}
		switch {
		case isPkgLevel(o):
			mark(o)
			quals = append(quals, qual{id, to})
		case isMember(o):
			mark(o)
		}
	}
	// collisions
	bad := false
	for o, n := range export {
		if isPkgLevel(o) {
			// any package-level object of the same destination package with that name
			for _, name := range pkg.Scope().Names() {
				o2 := pkg.Scope().Lookup(name)
				if o2 != o && name == n && pkgOf(o2.Pos()) == pkgOf(o.Pos()) {
					fmt.Fprintf(os.Stderr, "collision: %s -> %s in %s\n", o.Name(), n, pkgOf(o.Pos()))
					bad = true
				}
			}
		} else {
			fmt.Fprintf(os.Stderr, "member export: %s -> %s (%s)\n", o.Name(), n, fset.Position(o.Pos()))
		}
	}
	for o, n := range export {
		for o2, n2 := range export {
			if o != o2 && n == n2 && isPkgLevel(o) && isPkgLevel(o2) && pkgOf(o.Pos()) == pkgOf(o2.Pos()) {
				fmt.Fprintf(os.Stderr, "collision between exports %s %s -> %s\n", o.Name(), o2.Name(), n)
				bad = true
			}
		}
	}
	if bad {
		os.Exit(1)
	}
	edits := map[string]map[int]edit{}
	add := func(id *ast.Ident, text string) {
		p := fset.Position(id.Pos())
		if edits[p.Filename] == nil {
			edits[p.Filename] = map[int]edit{}
		}
		edits[p.Filename][p.Offset] = edit{p.Offset, p.Offset + len(id.Name), text}
	}
	for id, o := range info.Defs {
		if o == nil {
			continue
		}
		if n, ok := export[o]; ok {
			add(id, n)
		}
	}
	for id, o := range info.Uses {
		if n, ok := export[o]; ok {
			add(id, n)
		}
	}
	needs := map[string]map[string]bool{}
	for _, q := range quals {
		o := info.Uses[q.id]
		n := o.Name()
		if e, ok := export[o]; ok {
			n = e
		}
		add(q.id, q.pkg+"."+n)
		f := fset.Position(q.id.Pos()).Filename
		if needs[f] == nil {
			needs[f] = map[string]bool{}
		}
		needs[f][q.pkg] = true
	}
	for _, f := range files {
		name := fset.Position(f.Package).Filename
		data := src[name]
		es := edits[name]
		var list []edit
		for _, e := range es {
			list = append(list, e)
		}
		// package clause
		p := pkgOf(f.Package)
		if p != stay {
			off := fset.Position(f.Name.Pos()).Offset
			list = append(list, edit{off, off + len(f.Name.Name), p})
		}
		// imports
		if len(needs[name]) > 0 {
			var imps []string
			for q := range needs[name] {
				imps = append(imps, fmt.Sprintf("\t%q\n", mod+"/"+q))
			}
			sort.Strings(imps)
			if len(f.Imports) > 0 {
				off := fset.Position(f.Imports[0].Pos()).Offset
				// go to line start
				for off > 0 && data[off-1] != '\n' {
					off--
				}
				if f.Imports[0].Pos() > 0 && len(f.Decls) > 0 {
					if gd, ok := f.Decls[0].(*ast.GenDecl); ok && gd.Lparen.IsValid() {
						list = append(list, edit{off, off, strings.Join(imps, "")})
					} else {
						list = append(list, edit{off, off, "import (\n" + strings.Join(imps, "") + ")\n"})
					}
				}
			} else {
				off := fset.Position(f.Name.End()).Offset
				list = append(list, edit{off, off, "\n\nimport (\n" + strings.Join(imps, "") + ")"})
			}
		}
		if len(list) == 0 {
			continue
		}
		sort.Slice(list, func(i, j int) bool { return list[i].off > list[j].off })
		out := append([]byte(nil), data...)
		for _, e := range list {
			out = append(out[:e.off], append([]byte(e.text), out[e.end:]...)...)
		}
		if err := os.WriteFile(name, out, 0o644); err != nil {
			panic(err)
		}
	}
	// exported names per destination, for callers outside
	for _, name := range pkg.Scope().Names() {
		o := pkg.Scope().Lookup(name)
		p := pkgOf(o.Pos())
		if p != stay && ast.IsExported(name) && !strings.HasSuffix(fset.Position(o.Pos()).Filename, "_test.go") {
			fmt.Printf("%s %s\n", p, name)
		}
	}
}
