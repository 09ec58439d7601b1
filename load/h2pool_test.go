package load

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/http2"

	"github.com/latlab/latlab/record"
)

// TestH2CToHTTP1HeapBounded sends h2c requests to a server that speaks
// only HTTP/1.1, each on a new connection that fails at the preface, and
// checks that the live heap does not grow with the failures: x/net keeps a
// ClientConn whose connection dies young, buffers and all, for 5 s, so one
// built per failed dial would hold about 12 KB each.
func TestH2CToHTTP1HeapBounded(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	defer srv.Close()
	tr, err := newNetHTTP(Options{H2C: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	sess := tr.Session()
	defer sess.Close()
	req := nhRequest(t, "GET", srv.URL, "")
	do := func() record.Sample {
		var s record.Sample
		sess.Do(context.Background(), req, &s)
		return s
	}
	first := do() // the first use allocates what every later one reuses
	if first.Error != record.Protocol || !strings.Contains(first.Err.Error(), "does not speak HTTP/2") {
		t.Fatalf("got %s (%v), want protocol: server does not speak HTTP/2", first.Error, first.Err)
	}
	const n = 2000
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range n {
		if s := do(); s.Error != record.Protocol {
			t.Fatalf("request %d: got %s (%v), want protocol", i, s.Error, s.Err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	// A few connections of the server may still be closing; what the
	// client keeps per failure must be nothing.
	const bound = 1 << 20
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > bound {
		t.Errorf("live heap grew by %d bytes over %d failed dials (%d per dial), want at most %d", grew, n, grew/n, bound)
	}
}

// TestH2GoAwayRacedRetried has many sessions send at once to a server that
// ends each connection after its first response: the streams that raced
// that response are refused, never processed, and must go again until
// they are answered, however often they are refused.
func TestH2GoAwayRacedRetried(t *testing.T) {
	for _, mode := range []string{"h2", "h2c"} {
		t.Run(mode, func(t *testing.T) {
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Connection", "close")
			})
			base, tr := nhServe(t, nhModeNamed(t, mode), h, nil, Options{Timeout: 20 * time.Second})
			req := nhRequest(t, "GET", base, "")
			const sessions, each = 16, 40
			var mu sync.Mutex
			failed := map[string]int{}
			var wg sync.WaitGroup
			for range sessions {
				wg.Go(func() {
					sess := tr.Session()
					defer sess.Close()
					for range each {
						var s record.Sample
						sess.Do(context.Background(), req, &s)
						if s.Error != record.OK {
							mu.Lock()
							failed[fmt.Sprint(s.Error, ": ", s.Err)]++
							mu.Unlock()
						}
					}
				})
			}
			wg.Wait()
			if len(failed) > 0 {
				t.Errorf("of %d requests, failed: %v; want none", sessions*each, failed)
			}
		})
	}
}

// TestH2PrefaceStrictServer has a server send its SETTINGS only once it
// has read the client's whole connection preface, SETTINGS included, as
// RFC 9113 allows: the pool must send that before it waits, and take the
// stream limit from the server's SETTINGS.
func TestH2PrefaceStrictServer(t *testing.T) {
	served := make(chan error, 1)
	srv := newRawServer(t, func(c net.Conn, br *bufio.Reader) {
		served <- func() error {
			magic := make([]byte, len(http2.ClientPreface))
			if _, err := io.ReadFull(br, magic); err != nil || string(magic) != http2.ClientPreface {
				return fmt.Errorf("preface %q, %v", magic, err)
			}
			fr := http2.NewFramer(c, br)
			if f, err := fr.ReadFrame(); err != nil {
				return err
			} else if _, ok := f.(*http2.SettingsFrame); !ok {
				return fmt.Errorf("client's first frame is %v, want SETTINGS", f.Header())
			}
			return fr.WriteSettings(http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: 7})
		}()
		io.Copy(io.Discard, br)
	})
	tr, err := newH2(Options{H2C: true})
	if err != nil {
		t.Fatal(err)
	}
	nc, err := net.Dial("tcp", srv.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, maxStreams, err := h2Preface(ctx, nc, tr.first)
	if err != nil || maxStreams != 7 {
		t.Errorf("h2Preface: max streams %d, error %v; want 7, none", maxStreams, err)
	}
	nc.Close() // a server still reading stops
	if err := <-served; err != nil {
		t.Errorf("server: %v", err)
	}
}
