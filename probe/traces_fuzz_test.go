package probe

import (
	"net/http"
	"testing"

	"google.golang.org/protobuf/proto"
)

// FuzzTraceReceiver feeds arbitrary bodies to the receiver as protobuf and
// as JSON: it must answer 200, 400 or 413 and never crash, and Hops must
// cope with whatever spans it kept.
func FuzzTraceReceiver(f *testing.F) {
	good, err := proto.Marshal(exportRequest(1, chainSpans(0)[1]...))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good, false)
	f.Add([]byte(traceJSON), true)
	f.Add([]byte("{}"), true)
	f.Add([]byte{0x0a, 0x02, 0x12, 0x00}, false)
	f.Fuzz(func(t *testing.T, body []byte, asJSON bool) {
		r := &TraceReceiver{MaxBodyBytes: 1 << 16, ParentWait: -1} // spans arrive whole or never
		ct := "application/x-protobuf"
		if asJSON {
			ct = "application/json"
		}
		w := tracePost(t, r, ct, "", body)
		switch w.Code {
		case http.StatusOK, http.StatusBadRequest, http.StatusRequestEntityTooLarge:
		default:
			t.Fatalf("status %d for a %d-byte body", w.Code, len(body))
		}
		for _, h := range r.Hops() {
			if h.Framework.P50 < 0 || len(h.Framework.Samples) != h.Count {
				t.Fatalf("hop %+v: negative framework time or a count that is not its samples", h)
			}
		}
		_ = r.Points(traceBase)
	})
}
