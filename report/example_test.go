package report_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/load"
	"github.com/latlab/latlab/report"
	"github.com/latlab/latlab/store"
)

// ExampleAttack attacks a server on 127.0.0.1:8080 for 10 s and prints
// what it measured. It needs the server, so it is compiled but not run.
func ExampleAttack() {
	u, err := url.Parse("http://127.0.0.1:8080/")
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := load.Attack(context.Background(), load.Config{
		Source:   load.Static{{Method: http.MethodGet, URL: u}},
		Model:    load.Open{Pacer: load.Constant{Rate: 1000}},
		Duration: 10 * time.Second,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := report.Attack(os.Stdout, res, "GET http://127.0.0.1:8080/"); err != nil {
		fmt.Println(err)
	}
}

// ExampleExperiment_WriteText prints the report of experiment 1 of
// results.db, with its probe summary, loaded as latlab report loads it:
// with the design of its stored spec (see spec.DesignOf). It needs a
// results database, so it is compiled but not run.
func ExampleExperiment_WriteText() {
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
	r, err := report.NewExperiment(exp, report.ExperimentOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := r.LoadProbes(ctx, db); err != nil { // for the probe summary
		fmt.Println(err)
		return
	}
	if err := r.WriteText(os.Stdout); err != nil {
		fmt.Println(err)
	}
}
