// xref prints, for package-level objects of a package, uses that cross file groups.
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
)

func main() {
	dir := os.Args[1]
	groups := map[string]string{} // file -> group
	for _, a := range os.Args[2:] {
		g, files, _ := strings.Cut(a, "=")
		for _, f := range strings.Split(files, ",") {
			groups[f] = g
		}
	}
	fset := token.NewFileSet()
	matches, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	var files []*ast.File
	for _, m := range matches {
		if strings.HasSuffix(m, "_test.go") && os.Getenv("TESTS") == "" {
			continue
		}
		f, err := parser.ParseFile(fset, m, nil, 0)
		if f != nil && strings.HasSuffix(f.Name.Name, "_test") {
			continue
		}
		if err != nil {
			panic(err)
		}
		files = append(files, f)
	}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
	pkg, err := conf.Check("x", fset, files, info)
	if err != nil {
		panic(err)
	}
	grp := func(pos token.Pos) string {
		f := filepath.Base(fset.Position(pos).Filename)
		if g, ok := groups[f]; ok {
			return g
		}
		return "?" + f
	}
	type key struct{ from, to, name string }
	seen := map[key]int{}
	for id, obj := range info.Uses {
		if obj.Pkg() != pkg {
			continue
		}
		name := obj.Name()
		if obj.Parent() != pkg.Scope() {
			// fields and methods
			switch o := obj.(type) {
			case *types.Var:
				if !o.IsField() {
					continue
				}
			case *types.Func:
			default:
				continue
			}
			if ast.IsExported(name) {
				continue
			}
			name = "." + name
		}
		from, to := grp(id.Pos()), grp(obj.Pos())
		if from != to {
			seen[key{from, to, name}]++
		}
	}
	var ks []key
	for k := range seen {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool {
		a, b := ks[i], ks[j]
		if a.from != b.from {
			return a.from < b.from
		}
		if a.to != b.to {
			return a.to < b.to
		}
		return a.name < b.name
	})
	for _, k := range ks {
		fmt.Printf("%s -> %s: %s (%d)\n", k.from, k.to, k.name, seen[k])
	}
}
