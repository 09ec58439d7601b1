package load

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/status"

	"github.com/latlab/latlab/record"
)

// echoServer answers every unary call with the request's own bytes (the
// test protos' replies have their requests' layout), or with the status a
// "x-status" metadata value names. It counts calls and connections.
type echoServer struct {
	addr     string
	calls    atomic.Int64
	messages atomic.Int64 // request messages received
	conns    atomic.Int64
	md       atomic.Value // the last call's metadata
}

// echoCodec hands a server the bytes of each message as they came.
type echoCodec struct{}

func (echoCodec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(*v.(*[]byte))}, nil
}

func (echoCodec) Unmarshal(data mem.BufferSlice, v any) error {
	*v.(*[]byte) = data.Materialize()
	return nil
}

func (echoCodec) Name() string { return "proto" }

type countingListener struct {
	net.Listener
	n *atomic.Int64
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.n.Add(1)
	}
	return c, err
}

func newEchoServer(t testing.TB) *echoServer {
	t.Helper()
	e := &echoServer{}
	srv := grpc.NewServer(grpc.ForceServerCodecV2(echoCodec{}), grpc.UnknownServiceHandler(func(_ any, st grpc.ServerStream) error {
		e.calls.Add(1)
		md, _ := metadata.FromIncomingContext(st.Context())
		e.md.Store(md)
		if v := md.Get("x-status"); len(v) > 0 {
			var c codes.Code
			if err := c.UnmarshalJSON([]byte(`"` + v[0] + `"`)); err != nil {
				return err
			}
			return status.Error(c, "asked for")
		}
		method, _ := grpc.MethodFromServerStream(st)
		var msg []byte
		var got int64
		for {
			if err := st.RecvMsg(&msg); err == io.EOF {
				break
			} else if err != nil {
				return err
			}
			got++
			e.messages.Add(1)
			switch {
			case strings.HasSuffix(method, "/Chat"): // each message echoed
				if err := st.SendMsg(&msg); err != nil {
					return err
				}
			case strings.HasSuffix(method, "/Count"): // three replies to the one request
				for range 3 {
					if err := st.SendMsg(&msg); err != nil {
						return err
					}
				}
			case !strings.HasSuffix(method, "/Collect"): // unary
				return st.SendMsg(&msg)
			}
		}
		if strings.HasSuffix(method, "/Collect") { // one reply to them all
			return st.SendMsg(&msg)
		}
		return nil
	}))
	e.addr = serveRPC(t, srv, &e.conns)
	return e
}

// newHealthServer serves grpc.health.v1.Health, with reflection when asked.
func newHealthServer(t *testing.T, reflect bool) string {
	t.Helper()
	srv := grpc.NewServer()
	hs := health.NewServer()
	hs.SetServingStatus("down", healthpb.HealthCheckResponse_NOT_SERVING)
	healthpb.RegisterHealthServer(srv, hs)
	if reflect {
		reflection.Register(srv)
	}
	return serveRPC(t, srv, new(atomic.Int64))
}

func serveRPC(t testing.TB, srv *grpc.Server, conns *atomic.Int64) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(countingListener{ln, conns})
	t.Cleanup(srv.Stop)
	return ln.Addr().String()
}

func rpcTo(t *testing.T, raw, body string) Static {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return Static{{URL: u, Header: http.Header{}, Body: []byte(body)}}
}

var greetProto = Options{Proto: []string{"testdata/rpc/greet.proto"}}

func TestRPCProtoFile(t *testing.T) {
	e := newEchoServer(t)
	src := rpcTo(t, "grpc://"+e.addr+"/latlab.test.Greeter/SayHello", `{"name": "ada", "full": {"given": "Ada"}}`)
	src[0].Header.Set("X-Trace", "t1")
	o := greetProto
	o.Connections = 2
	res := attack(t, context.Background(), Config{Source: src, Model: Closed{Workers: 4}, Count: 200, Transport: o})
	if res.Requests != 200 || res.Codes[record.GRPCOK] != 200 || res.Unsuccessful != 0 {
		t.Errorf("requests %d, OK %d, unsuccessful %d; want 200, 200, 0 (codes %v, errors %v)",
			res.Requests, res.Codes[record.GRPCOK], res.Unsuccessful, res.Codes, res.Errors)
	}
	if got := e.calls.Load(); got != 200 {
		t.Errorf("server saw %d calls, want 200", got)
	}
	if got := e.conns.Load(); got != 2 {
		t.Errorf("server saw %d connections, want the 2 asked for", got)
	}
	// {"name":"ada","full":{"given":"Ada"}} encodes to 12 bytes, sent and
	// echoed, each with a 5-byte frame prefix.
	if res.BytesOut != 200*17 || res.BytesIn != 200*17 {
		t.Errorf("bytes out %d, in %d; want %d each", res.BytesOut, res.BytesIn, 200*17)
	}
	md, _ := e.md.Load().(metadata.MD)
	if got := md.Get("x-trace"); len(got) != 1 || got[0] != "t1" {
		t.Errorf("metadata x-trace = %q, want [t1]", got)
	}
}

func TestRPCStatusCodes(t *testing.T) {
	e := newEchoServer(t)
	src := rpcTo(t, "grpc://"+e.addr+"/latlab.test.Greeter/SayHello", `{"name": "ada"}`)
	src[0].Header.Set("X-Status", "UNAVAILABLE")
	res := attack(t, context.Background(), Config{Source: src, Model: Closed{Workers: 2}, Count: 50, Transport: greetProto})
	if got := res.Codes[record.GRPCCode(uint32(codes.Unavailable))]; got != 50 || res.Unsuccessful != 50 || res.ErrorsTotal != 0 {
		t.Errorf("UNAVAILABLE %d, unsuccessful %d, errors %d; want 50, 50, 0 (codes %v)", got, res.Unsuccessful, res.ErrorsTotal, res.Codes)
	}
	sum, err := record.Summarize(res)
	if err != nil {
		t.Fatal(err)
	}
	if sum.StatusCodes["UNAVAILABLE"] != 50 {
		t.Errorf("summary status codes %v, want UNAVAILABLE: 50", sum.StatusCodes)
	}
}

func TestRPCReflection(t *testing.T) {
	addr := newHealthServer(t, true)
	for _, tc := range []struct {
		body string
		code codes.Code
	}{{`{}`, codes.OK}, {`{"service": "down"}`, codes.OK}, {`{"service": "nope"}`, codes.NotFound}} {
		src := rpcTo(t, "grpc://"+addr+"/grpc.health.v1.Health/Check", tc.body)
		res := attack(t, context.Background(), Config{Source: src, Model: Open{Pacer: Constant{Rate: 1000}}, Count: 100})
		if got := res.Codes[record.GRPCCode(uint32(tc.code))]; got != 100 {
			t.Errorf("%s: %d calls ended %s, want 100 (codes %v, errors %v)", tc.body, got, tc.code, res.Codes, res.Errors)
		}
		if res.Latency.TotalCount() != 100 || res.Lag.TotalCount() != 100 {
			t.Errorf("%s: latency and lag hold %d and %d, want 100", tc.body, res.Latency.TotalCount(), res.Lag.TotalCount())
		}
	}
}

// TestRPCBadInputs holds every wrong gRPC input to an error before the
// load that names what is wrong.
func TestRPCBadInputs(t *testing.T) {
	e := newEchoServer(t)
	plain := newHealthServer(t, false)
	refl := newHealthServer(t, true)
	greet := "grpc://" + e.addr + "/latlab.test.Greeter/"
	for _, tc := range []struct {
		name, url, body string
		o               Options
		want            []string
	}{
		{"method not in proto", greet + "SayBye", "", greetProto,
			[]string{"service latlab.test.Greeter has no method SayBye", "Chat, Collect, Count, SayHello"}},
		{"service not in proto", "grpc://" + e.addr + "/latlab.test.Nope/SayHello", "", greetProto,
			[]string{"testdata/rpc/greet.proto defines no service latlab.test.Nope", "latlab.test.Greeter"}},
		{"field not in message", greet + "SayHello", `{"nam": "x"}`, greetProto,
			[]string{"request body for latlab.test.Greeter/SayHello", `unknown field "nam"`}},
		{"not JSON", greet + "SayHello", `name=x`, greetProto, []string{"request body for latlab.test.Greeter/SayHello"}},
		{"no reflection, no proto", "grpc://" + plain + "/grpc.health.v1.Health/Check", "", Options{},
			[]string{plain + " has no reflection service", "--proto"}},
		{"service not served", "grpc://" + refl + "/grpc.health.v1.Nope/Check", "", Options{},
			[]string{"serves no service grpc.health.v1.Nope", "grpc.health.v1.Health"}},
		{"TLS to a cleartext server", "grpcs://" + e.addr + "/latlab.test.Greeter/SayHello", "", greetProto,
			[]string{e.addr, "handshake"}},
		{"bad path", "grpc://" + e.addr + "/SayHello", "", greetProto, []string{"want /package.Service/Method"}},
		{"proto does not compile", greet + "SayHello", "", Options{Proto: []string{"testdata/rpc/missing.proto"}},
			[]string{"proto: ", "missing.proto"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Attack(context.Background(), Config{Source: rpcTo(t, tc.url, tc.body), Model: Closed{Workers: 1}, Count: 1, Transport: tc.o})
			if err == nil {
				t.Fatal("the attack started")
			}
			t.Log(err)
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
	if got := e.calls.Load(); got != 0 {
		t.Errorf("the echo server saw %d calls; a refused attack sends none", got)
	}
}

// TestRPCTimeout records a call past the timeout as DEADLINE_EXCEEDED, a
// status like any other.
func TestRPCTimeout(t *testing.T) {
	srv := grpc.NewServer(grpc.ForceServerCodecV2(echoCodec{}), grpc.UnknownServiceHandler(func(_ any, st grpc.ServerStream) error {
		<-st.Context().Done()
		return st.Context().Err()
	}))
	addr := serveRPC(t, srv, new(atomic.Int64))
	o := greetProto
	o.Timeout = 20 * time.Millisecond
	res := attack(t, context.Background(), Config{Source: rpcTo(t, "grpc://"+addr+"/latlab.test.Greeter/SayHello", ""),
		Model: Closed{Workers: 2}, Count: 4, Transport: o})
	if got := res.Codes[record.GRPCCode(uint32(codes.DeadlineExceeded))]; got != 4 {
		t.Errorf("DEADLINE_EXCEEDED %d, want 4 (codes %v, errors %v)", got, res.Codes, res.Errors)
	}
	// Min is its bucket's lowest value: the timeout's bucket is the floor.
	if min := res.Service.Min(); min < int64(o.Timeout) && !res.Service.ValuesAreEquivalent(min, int64(o.Timeout)) {
		t.Errorf("a call ended after %s, before the %s timeout", time.Duration(min), o.Timeout)
	}
}

func ExampleAttack_grpc() {
	// A unary call of grpc.health.v1.Health/Check, its types asked of the
	// server's reflection service, 1,000 times a second for a second.
	u, _ := url.Parse("grpc://127.0.0.1:50051/grpc.health.v1.Health/Check")
	res, err := Attack(context.Background(), Config{
		Source:   Static{{URL: u, Body: []byte(`{"service": "shop"}`)}},
		Model:    Open{Pacer: Constant{Rate: 1000}},
		Duration: time.Second,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Codes[record.GRPCOK], "calls ended OK")
}

// TestRPCScenario runs a scenario that mixes an HTTP step and a gRPC step
// whose message is templated per iteration.
func TestRPCScenario(t *testing.T) {
	e := newEchoServer(t)
	srv := newCountingServer(t, 0)
	text := "steps:\n" +
		"  - {name: page, url: " + srv.URL + "/}\n" +
		"  - name: greet\n" +
		"    url: grpc://" + e.addr + "/latlab.test.Greeter/SayHello\n" +
		"    headers: {x-iter: '{{.Iter}}'}\n" +
		"    body: '{\"name\": \"user {{.Iter}}\"}'\n"
	sc, err := ParseScenario("s.yaml", []byte(text), fakeFiles(nil))
	if err != nil {
		t.Fatal(err)
	}
	res := attack(t, context.Background(), Config{Source: sc, Model: Closed{Workers: 2}, Count: 20, Transport: greetProto})
	if res.Codes[200] != 20 || res.Codes[record.GRPCOK] != 20 {
		t.Errorf("codes %v, want 200: 20 and OK: 20", res.Codes)
	}
	if got := e.calls.Load(); got != 20 {
		t.Errorf("gRPC server saw %d calls, want 20", got)
	}
	md, _ := e.md.Load().(metadata.MD)
	if got := md.Get("x-iter"); len(got) != 1 {
		t.Errorf("metadata x-iter = %q, want one value", got)
	}
}

// BenchmarkAttackRPC is a closed loop of unary gRPC calls against the
// in-process echo server: what each call costs (client and server
// together, so compare runs, not absolute figures).
func BenchmarkAttackRPC(b *testing.B) {
	e := newEchoServer(b)
	u, _ := url.Parse("grpc://" + e.addr + "/latlab.test.Greeter/SayHello")
	req := &Request{URL: u, Body: []byte(`{"name": "ada"}`)}
	const count = 5000
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	for b.Loop() {
		res, err := Attack(context.Background(), Config{Source: Static{req}, Model: Closed{Workers: 8}, Count: count, Transport: greetProto})
		if err != nil || res.Codes[record.GRPCOK] != count {
			b.Fatalf("err %v, codes %v", err, res.Codes)
		}
	}
	runtime.ReadMemStats(&ms1)
	n := float64(int64(b.N) * count)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/call")
	b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/n, "allocs/call")
}

// TestRPCTLS calls a grpcs:// server that asks for a client certificate:
// with the CA and the certificate the calls are OK; without the CA the
// attack is refused before the load, naming the handshake.
func TestRPCTLS(t *testing.T) {
	pki := newTestPKI(t)
	srvCert, srvKey := pki.issue(t, "server", x509.ExtKeyUsageServerAuth)
	cliCert, cliKey := pki.issue(t, "client", x509.ExtKeyUsageClientAuth)
	sc, err := tls.X509KeyPair(srvCert, srvKey)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(pki.caPEM)
	srv := grpc.NewServer(grpc.Creds(credentials.NewTLS(&tls.Config{Certificates: []tls.Certificate{sc},
		ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: roots})))
	healthpb.RegisterHealthServer(srv, health.NewServer())
	reflection.Register(srv)
	addr := serveRPC(t, srv, new(atomic.Int64))

	dir := t.TempDir()
	files := map[string][]byte{"ca.pem": pki.caPEM, "cert.pem": cliCert, "key.pem": cliKey}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := TLSFiles{CACert: filepath.Join(dir, "ca.pem"), Cert: filepath.Join(dir, "cert.pem"), Key: filepath.Join(dir, "key.pem")}.Config()
	if err != nil {
		t.Fatal(err)
	}
	src := rpcTo(t, "grpcs://"+addr+"/grpc.health.v1.Health/Check", "")
	res := attack(t, context.Background(), Config{Source: src, Model: Closed{Workers: 2}, Count: 20, Transport: Options{TLS: cfg}})
	if res.Codes[record.GRPCOK] != 20 {
		t.Errorf("codes %v, errors %v; want OK: 20", res.Codes, res.Errors)
	}
	_, err = Attack(context.Background(), Config{Source: src, Model: Closed{Workers: 1}, Count: 1})
	if err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("without the CA: error %v, want one about the certificate", err)
	}
}

// TestRPCStreams makes calls of each streaming kind: every message sent
// and read is counted, a client-streaming call's messages go
// message_interval apart, inside its latency, and the gaps between a
// server stream's replies are timed, within its read. A bidirectional
// call's replies are read as they come: its wait is its first round
// trip, and its gaps hold the intervals it sent its messages at.
func TestRPCStreams(t *testing.T) {
	e := newEchoServer(t)
	body := `{"name": "ada"}` // 5 bytes encoded, 10 with the frame prefix
	for _, tc := range []struct {
		method       string
		sent, echoed int64 // messages per call
		gaps         int64 // reply gaps timed per call
	}{{"Count", 1, 3, 2}, {"Collect", 4, 1, 0}, {"Chat", 4, 4, 3}} {
		t.Run(tc.method, func(t *testing.T) {
			before := e.messages.Load()
			o := greetProto
			o.Messages, o.MessageGap = 4, 2*time.Millisecond
			src := rpcTo(t, "grpc://"+e.addr+"/latlab.test.Greeter/"+tc.method, body)
			res := attack(t, context.Background(), Config{Source: src, Model: Closed{Workers: 2}, Count: 10, Transport: o})
			if res.Codes[record.GRPCOK] != 10 {
				t.Fatalf("codes %v, errors %v; want OK: 10", res.Codes, res.Errors)
			}
			if got := e.messages.Load() - before; got != 10*tc.sent {
				t.Errorf("server read %d messages, want %d", got, 10*tc.sent)
			}
			if res.BytesOut != 10*tc.sent*10 || res.BytesIn != 10*tc.echoed*10 {
				t.Errorf("bytes out %d, in %d; want %d and %d", res.BytesOut, res.BytesIn, 10*tc.sent*10, 10*tc.echoed*10)
			}
			if res.MessagesOut != 10*tc.sent || res.MessagesIn != 10*tc.echoed {
				t.Errorf("messages out %d, in %d; want %d and %d", res.MessagesOut, res.MessagesIn, 10*tc.sent, 10*tc.echoed)
			}
			if gaps := time.Duration(tc.sent-1) * o.MessageGap; time.Duration(res.Service.Min()) < gaps {
				t.Errorf("a call took %s, less than its %s of intervals", time.Duration(res.Service.Min()), gaps)
			}
			// Every call's wait (last message sent → first reply) is
			// measured, and is within its service time, which has the
			// intervals besides (with 1% for the histograms' rounding).
			if res.Wait == nil || res.Wait.TotalCount() != 10 {
				t.Errorf("wait measured for %v calls, want 10", res.Wait)
			} else if gaps := time.Duration(tc.sent-1) * o.MessageGap; float64(res.Wait.Max()) > 1.01*float64(res.Service.Max())-float64(gaps) {
				t.Errorf("wait max %s is over the service time max %s less the %s of intervals",
					time.Duration(res.Wait.Max()), time.Duration(res.Service.Max()), gaps)
			}
			checkReplyGaps(t, res, 10*tc.gaps)
		})
	}
}

// checkReplyGaps holds res to want reply gaps (none: no histogram), whose
// sum is within the sum of the reads they are part of (with 1% and 1 µs a
// sample for the histograms' rounding).
func checkReplyGaps(t *testing.T, res *record.Result, want int64) {
	t.Helper()
	if want == 0 {
		if res.ReplyGap != nil {
			t.Errorf("%d reply gaps timed, want none", res.ReplyGap.TotalCount())
		}
		return
	}
	if res.ReplyGap == nil || res.ReplyGap.TotalCount() != want {
		t.Fatalf("reply gaps %v timed, want %d", res.ReplyGap, want)
	}
	sum := func(h *hdr.Histogram) float64 { return h.Mean() * float64(h.TotalCount()) }
	if g, r := sum(res.ReplyGap), sum(res.Read); g > 1.01*r+float64(want)*1e3 {
		t.Errorf("reply gaps add up to %s, past the reads' %s", time.Duration(g), time.Duration(r))
	}
}

// TestRPCStreamsCap keeps a connection's calls in progress to --streams:
// four workers on one connection with two streams never have more than
// two calls at the server at once, and every call is answered.
func TestRPCStreamsCap(t *testing.T) {
	var now, most atomic.Int64
	srv := grpc.NewServer(grpc.ForceServerCodecV2(echoCodec{}), grpc.UnknownServiceHandler(func(_ any, st grpc.ServerStream) error {
		n := now.Add(1)
		defer now.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		var msg []byte
		if err := st.RecvMsg(&msg); err != nil {
			return err
		}
		time.Sleep(2 * time.Millisecond) // long enough for the other workers to want a stream
		return st.SendMsg(&msg)
	}))
	addr := serveRPC(t, srv, new(atomic.Int64))
	o := greetProto
	o.Streams = 2
	res := attack(t, context.Background(), Config{Source: rpcTo(t, "grpc://"+addr+"/latlab.test.Greeter/SayHello", ""),
		Model: Closed{Workers: 4}, Count: 40, Transport: o})
	if got := res.Codes[record.GRPCOK]; got != 40 {
		t.Errorf("OK %d, want 40 (codes %v, errors %v)", got, res.Codes, res.Errors)
	}
	if m := most.Load(); m > 2 {
		t.Errorf("the server had %d calls at once, more than the 2 streams of the one connection", m)
	}
}

// TestRPCStreamsUncapped leaves a connection's calls to the server when
// streams is HTTP/2's default: 120 workers on one connection have all
// 120 calls at the server at once, as a gRPC client would.
func TestRPCStreamsUncapped(t *testing.T) {
	var now, most atomic.Int64
	all := make(chan struct{})
	var once sync.Once
	srv := grpc.NewServer(grpc.ForceServerCodecV2(echoCodec{}), grpc.UnknownServiceHandler(func(_ any, st grpc.ServerStream) error {
		n := now.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		if n == 120 {
			once.Do(func() { close(all) })
		}
		var msg []byte
		if err := st.RecvMsg(&msg); err != nil {
			return err
		}
		select { // every call waits for the 120th, or gives up
		case <-all:
		case <-time.After(10 * time.Second):
		}
		return st.SendMsg(&msg)
	}))
	addr := serveRPC(t, srv, new(atomic.Int64))
	o := greetProto
	o.Streams = DefaultStreams
	res := attack(t, context.Background(), Config{Source: rpcTo(t, "grpc://"+addr+"/latlab.test.Greeter/SayHello", ""),
		Model: Closed{Workers: 120}, Count: 120, Transport: o})
	if got := res.Codes[record.GRPCOK]; got != 120 {
		t.Errorf("OK %d, want 120 (codes %v, errors %v)", got, res.Codes, res.Errors)
	}
	if m := most.Load(); m != 120 {
		t.Errorf("the server had at most %d calls at once, want all 120", m)
	}
}
