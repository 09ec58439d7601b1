package analysis_test

import (
	"context"
	"fmt"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/store"
)

// Example loads experiment 1 of results.db as latlab report does, with the
// design of its stored spec (see spec.DesignOf), aggregates its runs
// by variant and level, and prints each variant's overhead against the
// spec's baseline. It needs a results database, so it is compiled but not
// run.
func Example() {
	ctx := context.Background()
	db, err := store.OpenReadOnly(ctx, "results.db")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	exp, err := analysis.Load(ctx, db, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	levels := analysis.Aggregate(exp.Runs, analysis.Options{})
	for _, c := range analysis.Overheads(levels, exp.Design.Baseline) {
		fmt.Printf("%s %s %s: %s\n", c.Variant, c.Level, c.Name, c.Diff)
	}
}
