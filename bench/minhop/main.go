// Command minhop is the smallest service of a chain, for bench/hop.sh to
// measure latlab's graph nodes against: testapi's chain (each service
// calls the next, as DOWNSTREAM_URI wires it) in plain net/http, with no
// metrics, traces or extra headers. / forwards at once; /busywork?ms=N
// spins the CPU N ms (default -busywork) first. Each hop calls the next
// with the same route through one shared http.Client.
package main

import (
	"flag"
	"io"
	"log"
	"net/http"
	"strconv"
	"time"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:8080", "address to listen on")
	next := flag.String("next", "", "base URL of the next hop; empty for the last one")
	busy := flag.Duration("busywork", 10*time.Millisecond, "CPU spin of /busywork without ?ms=")
	flag.Parse()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/busywork" {
			d := *busy
			if ms, err := strconv.Atoi(r.URL.Query().Get("ms")); err == nil {
				d = time.Duration(ms) * time.Millisecond
			}
			for end := time.Now().Add(d); time.Now().Before(end); {
			}
		}
		var body []byte
		if *next != "" {
			resp, err := client.Get(*next + r.URL.RequestURI())
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			body, _ = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		_, _ = w.Write(append([]byte(*listen+" "+r.URL.Path+"\n"), body...))
	})
	log.Fatal(http.ListenAndServe(*listen, nil))
}
