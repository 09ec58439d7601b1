package load_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"

	"github.com/latlab/latlab/load"
	"github.com/latlab/latlab/record"
)

// Example sends 20 requests at 1,000 per second to a server on 127.0.0.1
// and reads what they measured.
func Example() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	u, err := url.Parse(srv.URL + "/")
	if err != nil {
		fmt.Println(err)
		return
	}
	req := &load.Request{Method: http.MethodGet, URL: u}
	res, err := load.Attack(context.Background(), load.Config{
		Source: load.Static{req},
		Model:  load.Open{Pacer: load.Constant{Rate: 1000}},
		Count:  20,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	sum, err := record.Summarize(res)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d sent, %d requests, status codes %v, success %g\n", sum.Sent, sum.Requests, sum.StatusCodes, sum.SuccessRatio)
	// Output:
	// 20 sent, 20 requests, status codes map[200:20], success 1
}
