package demo_test

import (
	"context"
	"fmt"
	"os"

	"github.com/latlab/latlab/demo"
)

// ExampleRun runs the demo into the folder latlab-demo and says how to
// resume it if it was stopped. It takes minutes and starts a graph of
// latlab processes, so it is compiled but not run.
func ExampleRun() {
	out, err := demo.Run(context.Background(), demo.Options{Dir: "latlab-demo", Log: os.Stderr}, os.Stdout)
	if err != nil {
		fmt.Println(err)
		return
	}
	if out.Interrupted {
		fmt.Println("run again with the same Options to resume")
		return
	}
	fmt.Println("report:", out.Report)
}
