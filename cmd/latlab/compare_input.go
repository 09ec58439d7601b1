package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"

	"github.com/latlab/latlab/benchcmp"
	"github.com/latlab/latlab/store"
)

// inputKind is what an argument of compare holds.
type inputKind int

const (
	benchInput inputKind = iota + 1 // go test -bench output
	dbInput                         // a results database
)

func (k inputKind) String() string {
	if k == dbInput {
		return "a results database"
	}
	return "go test -bench output"
}

// sqliteHeader starts every SQLite database file.
const sqliteHeader = "SQLite format 3\x00"

// compareInput is one argument of compare.
type compareInput struct {
	arg     string // as given, for column headers and messages
	path    string // the file
	variant string // after FILE:, "" for every variant
	kind    inputKind
}

// resolveInput splits arg into a file and a variant and tells what the
// file holds. arg is FILE:VARIANT when FILE is a file and arg as a whole
// is not; the last such colon wins, so a file name may hold colons.
func resolveInput(arg string) (compareInput, error) {
	in := compareInput{arg: arg, path: arg}
	fi, err := os.Stat(arg)
	switch {
	case err == nil && fi.IsDir():
		return in, usagef("%s is a directory", arg)
	case errors.Is(err, os.ErrNotExist):
		found := false
		for i := strings.LastIndex(arg, ":"); i > 0 && !found; i = strings.LastIndex(arg[:i], ":") {
			if fi, err := os.Stat(arg[:i]); err == nil && fi.Mode().IsRegular() {
				in.path, in.variant, found = arg[:i], arg[i+1:], true
			}
		}
		switch {
		case !found && strings.Contains(arg, ":"):
			return in, usagef("%s: no such file, nor FILE:VARIANT with an existing FILE", arg)
		case !found:
			return in, usagef("%s: no such file", arg)
		case in.variant == "":
			return in, usagef("%s: no variant after the colon", arg)
		}
	case err != nil:
		return in, usageError{err}
	}
	f, err := os.Open(in.path)
	if err != nil {
		return in, usageError{err}
	}
	defer f.Close()
	head := make([]byte, len(sqliteHeader))
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return in, usagef("reading %s: %v", in.path, err)
	}
	head = head[:n]
	switch {
	case string(head) == sqliteHeader:
		in.kind = dbInput
	case in.variant != "":
		return in, usagef("%s: %s is not a results database, so it has no variant %q", arg, in.path, in.variant)
	case benchcmp.IsBenchFile(io.MultiReader(bytes.NewReader(head), f)):
		in.kind = benchInput
	default:
		return in, usagef("%s:1: not go test -bench output (no line starts with \"Benchmark\" or \"goos:\") nor a results database", in.path)
	}
	return in, nil
}

// openDB opens the results database at path for reading; a file it
// cannot open is bad input.
func openDB(ctx context.Context, path string) (*store.DB, error) {
	db, err := store.OpenReadOnly(ctx, path)
	if err != nil {
		return nil, usageError{err}
	}
	return db, nil
}
