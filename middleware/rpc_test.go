package middleware

import (
	"context"
	"errors"
	"io"
	"net"
	"path"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// The servers below serve a service written out by hand, so that no
// generated code is needed: two unary methods and a bidirectional stream,
// whose messages are raw bytes echoed back.
const (
	echoService  = "latlab.test.Echo"
	methodUnary  = "/" + echoService + "/Unary"
	methodOther  = "/" + echoService + "/Other"
	methodStream = "/" + echoService + "/Stream"
	userKey      = "x-remote-user" // DefaultUserHeader as metadata

	// guard bounds every wait below. It turns a hang into a failure and
	// never decides a result on its own.
	guard = 30 * time.Second
)

// rawCodec carries each message as the bytes it is.
type rawCodec struct{}

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(*v.(*[]byte))}, nil
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	*v.(*[]byte) = data.Materialize()
	return nil
}

func (rawCodec) Name() string { return "proto" }

// echo is the service's implementation: every call runs handle, if set,
// before it echoes.
type echo struct {
	handle func(ctx context.Context) error
	calls  atomic.Int64 // handler runs
}

func (e *echo) run(ctx context.Context) error {
	e.calls.Add(1)
	if e.handle == nil {
		return nil
	}
	return e.handle(ctx)
}

var echoDesc = grpc.ServiceDesc{
	ServiceName: echoService,
	HandlerType: (*any)(nil),
	Methods:     []grpc.MethodDesc{echoUnary(methodUnary), echoUnary(methodOther)},
	Streams: []grpc.StreamDesc{{
		StreamName:    "Stream",
		Handler:       echoStream,
		ServerStreams: true,
		ClientStreams: true,
	}},
}

// echoUnary is what generated code would write for a unary method.
func echoUnary(method string) grpc.MethodDesc {
	return grpc.MethodDesc{
		MethodName: strings.TrimPrefix(method, "/"+echoService+"/"),
		Handler: func(srv any, ctx context.Context, dec func(any) error, ic grpc.UnaryServerInterceptor) (any, error) {
			in := new([]byte)
			if err := dec(in); err != nil {
				return nil, err
			}
			h := func(ctx context.Context, req any) (any, error) { return req, srv.(*echo).run(ctx) }
			if ic == nil {
				return h(ctx, in)
			}
			return ic(ctx, in, &grpc.UnaryServerInfo{Server: srv, FullMethod: method}, h)
		},
	}
}

func echoStream(srv any, ss grpc.ServerStream) error {
	if err := srv.(*echo).run(ss.Context()); err != nil {
		return err
	}
	for {
		var msg []byte
		if err := ss.RecvMsg(&msg); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
		if err := ss.SendMsg(&msg); err != nil {
			return err
		}
	}
}

// serveEcho serves e behind ic on 127.0.0.1 and returns a client of it.
func serveEcho(t *testing.T, ic Interceptor, e *echo) *grpc.ClientConn {
	t.Helper()
	srv := grpc.NewServer(grpc.ForceServerCodecV2(rawCodec{}),
		grpc.UnaryInterceptor(ic.Unary), grpc.StreamInterceptor(ic.Stream))
	srv.RegisterService(&echoDesc, e)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(srv.Stop)
	cc, err := grpc.NewClient("passthrough:///"+ln.Addr().String(),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.ForceCodecV2(rawCodec{})))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cc.Close() })
	return cc
}

// result is how a call ended, as its client saw it.
type result struct {
	User       string
	Code       codes.Code
	Msg        string
	RetryAfter []string
}

// call makes one call of method as user, sent in metadata key ("" sends no
// user). A stream has one message echoed, then is closed.
func call(ctx context.Context, cc *grpc.ClientConn, method, key, user string) result {
	if user != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, key, user)
	}
	var header metadata.MD
	var err error
	if method == methodStream {
		header, err = streamCall(ctx, cc)
	} else {
		in, out := []byte("ping"), []byte(nil)
		err = cc.Invoke(ctx, method, &in, &out, grpc.Header(&header))
	}
	st := status.Convert(err)
	return result{user, st.Code(), st.Message(), header.Get(retryAfterKey)}
}

func streamCall(ctx context.Context, cc *grpc.ClientConn) (metadata.MD, error) {
	s, err := openStream(ctx, cc)
	if err != nil {
		return nil, err
	}
	err = echoOnce(s)
	header, _ := s.Header() // sent even with a refusal
	if err != nil {
		return header, err
	}
	return header, closeStream(s)
}

func openStream(ctx context.Context, cc *grpc.ClientConn) (grpc.ClientStream, error) {
	desc := &grpc.StreamDesc{StreamName: "Stream", ServerStreams: true, ClientStreams: true}
	return cc.NewStream(ctx, desc, methodStream)
}

// echoOnce sends one message on s and reads its echo: once it returns nil,
// the server's handler runs.
func echoOnce(s grpc.ClientStream) error {
	msg := []byte("ping")
	// io.EOF means the call has ended; RecvMsg tells how.
	if err := s.SendMsg(&msg); err != nil && err != io.EOF {
		return err
	}
	var got []byte
	return s.RecvMsg(&got)
}

// closeStream ends s's sending side and waits for the call's status.
func closeStream(s grpc.ClientStream) error {
	if err := s.CloseSend(); err != nil {
		return err
	}
	var got []byte
	switch err := s.RecvMsg(&got); err {
	case io.EOF:
		return nil
	case nil:
		return errors.New("a message after the stream was closed")
	default:
		return err
	}
}

// guarded returns a context that ends after guard, or with the test.
func guarded(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), guard)
	t.Cleanup(cancel)
	return ctx
}

// await returns the next value from ch, failing the test after guard.
func await[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(guard):
		t.Fatalf("nothing after %v", guard)
		panic("unreachable")
	}
}

// interceptorFunc makes an Interceptor from what it does around next, the
// same for unary and streaming calls.
func interceptorFunc(f func(ctx context.Context, next func(context.Context) error) error) Interceptor {
	return Interceptor{
		Unary: func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
			var resp any
			err := f(ctx, func(ctx context.Context) error {
				var err error
				resp, err = handler(ctx, req)
				return err
			})
			return resp, err
		},
		Stream: func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
			return f(ss.Context(), func(ctx context.Context) error {
				return handler(srv, ctxStream{ss, ctx})
			})
		},
	}
}

// ctxStream is a ServerStream with another context.
type ctxStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s ctxStream) Context() context.Context { return s.ctx }

// invoke calls ic directly, without a server, as a unary call of methodUnary
// or a stream of methodStream, whose handler is handle.
func invoke(ctx context.Context, ic Interceptor, stream bool, handle func(context.Context) error) error {
	if stream {
		info := &grpc.StreamServerInfo{FullMethod: methodStream, IsClientStream: true, IsServerStream: true}
		return ic.Stream(nil, ctxStream{ctx: ctx}, info, func(_ any, ss grpc.ServerStream) error {
			return handle(ss.Context())
		})
	}
	info := &grpc.UnaryServerInfo{FullMethod: methodUnary}
	_, err := ic.Unary(ctx, nil, info, func(ctx context.Context, _ any) (any, error) {
		return nil, handle(ctx)
	})
	return err
}

// incoming returns ctx as a server sees it in a call from user.
func incoming(ctx context.Context, user string) context.Context {
	return metadata.NewIncomingContext(ctx, metadata.Pairs(userKey, user))
}

func TestChainRPC(t *testing.T) {
	tests := []struct {
		name string
		// Interceptor names; "" is the zero Interceptor, "u" one with
		// only a Unary func.
		ics        []string
		wantUnary  []string
		wantStream []string
	}{
		{"none", nil, []string{"handler"}, []string{"handler"}},
		{"one", []string{"a"}, []string{"a>", "handler", "<a"}, []string{"a>", "handler", "<a"}},
		{
			"outermost first", []string{"a", "b", "c"},
			[]string{"a>", "b>", "c>", "handler", "<c", "<b", "<a"},
			[]string{"a>", "b>", "c>", "handler", "<c", "<b", "<a"},
		},
		{"zero skipped", []string{"a", "", "b"}, []string{"a>", "b>", "handler", "<b", "<a"}, []string{"a>", "b>", "handler", "<b", "<a"}},
		{"nil func skipped", []string{"a", "u", "b"}, []string{"a>", "u>", "b>", "handler", "<b", "<u", "<a"}, []string{"a>", "b>", "handler", "<b", "<a"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex // the server runs the interceptors
			var got []string
			log := func(s string) {
				mu.Lock()
				defer mu.Unlock()
				got = append(got, s)
			}
			var ics []Interceptor
			for _, name := range tc.ics {
				var ic Interceptor
				if name != "" {
					ic = interceptorFunc(func(ctx context.Context, next func(context.Context) error) error {
						log(name + ">")
						defer log("<" + name)
						return next(ctx)
					})
				}
				if name == "u" {
					ic.Stream = nil
				}
				ics = append(ics, ic)
			}
			cc := serveEcho(t, ChainRPC(ics...), &echo{handle: func(context.Context) error {
				log("handler")
				return nil
			}})
			ctx := guarded(t)
			for _, method := range []string{methodUnary, methodStream} {
				mu.Lock()
				got = nil
				mu.Unlock()
				if r := call(ctx, cc, method, userKey, ""); r.Code != codes.OK {
					t.Fatalf("%s: %v %s", method, r.Code, r.Msg)
				}
				want := tc.wantUnary
				if method == methodStream {
					want = tc.wantStream
				}
				mu.Lock()
				diff := cmp.Diff(want, got)
				mu.Unlock()
				if diff != "" {
					t.Errorf("%s: call order (-want +got):\n%s", method, diff)
				}
			}
		})
	}
}

func TestPassthroughRPC(t *testing.T) {
	for _, stream := range []bool{false, true} {
		var seen string
		err := invoke(incoming(t.Context(), "alice"), PassthroughRPC(), stream, func(ctx context.Context) error {
			seen = userOfMetadata(ctx, userKey)
			return status.Error(codes.NotFound, "teapot")
		})
		got := [2]string{status.Code(err).String(), seen}
		if diff := cmp.Diff([2]string{codes.NotFound.String(), "alice"}, got); diff != "" {
			t.Errorf("stream %v: [status, user seen] (-want +got):\n%s", stream, diff)
		}
	}
}

// A call DelayRPC must not hold meets an hour's delay: were it held, it
// would run into the guard and fail. A held call meets a short one, and takes
// at least that long.
func TestDelayRPC(t *testing.T) {
	const d = 20 * time.Millisecond
	tests := []struct {
		name          string
		user, header  string // DelayRPC's arguments
		methods       []string
		key, callUser string // the metadata the call sends; "" user sends none
		method        string
		held          bool
	}{
		{name: "named user", user: "slow", key: userKey, callUser: "slow", method: methodUnary, held: true},
		{name: "named user streaming", user: "slow", key: userKey, callUser: "slow", method: methodStream, held: true},
		{name: "other user", user: "slow", key: userKey, callUser: "fast", method: methodUnary},
		{name: "other user streaming", user: "slow", key: userKey, callUser: "fast", method: methodStream},
		{name: "no user", user: "slow", method: methodUnary},
		{name: "anonymous held when user is empty", user: "", method: methodUnary, held: true},
		{name: "custom header", user: "slow", header: "X-User", key: "X-User", callUser: "slow", method: methodUnary, held: true},
		{name: "default header ignored under custom", user: "slow", header: "X-User", key: userKey, callUser: "slow", method: methodUnary},
		{name: "POST holds every call", user: "slow", methods: []string{"GET", "POST"}, key: userKey, callUser: "slow", method: methodOther, held: true},
		{name: "POST holds streams", user: "slow", methods: []string{"POST"}, key: userKey, callUser: "slow", method: methodStream, held: true},
		{name: "another HTTP method holds none", user: "slow", methods: []string{"GET", "PUT"}, key: userKey, callUser: "slow", method: methodUnary},
		{name: "named method held", user: "slow", methods: []string{methodUnary}, key: userKey, callUser: "slow", method: methodUnary, held: true},
		{name: "unnamed method not held", user: "slow", methods: []string{methodUnary}, key: userKey, callUser: "slow", method: methodOther},
		{name: "named stream held", user: "slow", methods: []string{methodStream}, key: userKey, callUser: "slow", method: methodStream, held: true},
		{name: "named method, other user", user: "slow", methods: []string{methodUnary}, key: userKey, callUser: "fast", method: methodUnary},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			delay := time.Hour
			if tc.held {
				delay = d
			}
			e := &echo{}
			cc := serveEcho(t, DelayRPC(tc.user, tc.header, delay, tc.methods...), e)
			ctx := guarded(t)
			start := time.Now()
			r := call(ctx, cc, tc.method, tc.key, tc.callUser)
			took := time.Since(start)
			if r.Code != codes.OK || e.calls.Load() != 1 {
				t.Fatalf("got %v %q, handler runs %d; want OK, 1", r.Code, r.Msg, e.calls.Load())
			}
			if tc.held && took < d {
				t.Errorf("call took %v; want at least the delay, %v", took, d)
			}
		})
	}
}

func TestDelayRPCZero(t *testing.T) {
	for _, d := range []time.Duration{0, -time.Second} {
		synctest.Test(t, func(t *testing.T) {
			called := false
			start := time.Now()
			err := invoke(incoming(t.Context(), "slow"), DelayRPC("slow", "", d), false, func(context.Context) error {
				called = true
				return nil
			})
			if got := time.Since(start); got != 0 || err != nil || !called {
				t.Errorf("d %v: held %v, error %v, handler called %v; want 0, nil, true", d, got, err, called)
			}
		})
	}
}

// The call's context ends while DelayRPC holds it (or just before: the
// outcome is the same). A spy in front of DelayRPC sees what it returns.
func TestDelayRPCContextEnds(t *testing.T) {
	for _, method := range []string{methodUnary, methodStream} {
		t.Run(strings.ToLower(path.Base(method)), func(t *testing.T) {
			entered, ended := make(chan struct{}, 1), make(chan error, 1)
			spy := interceptorFunc(func(ctx context.Context, next func(context.Context) error) error {
				entered <- struct{}{}
				err := next(ctx)
				ended <- err
				return err
			})
			e := &echo{}
			cc := serveEcho(t, ChainRPC(spy, DelayRPC("slow", "", time.Hour)), e)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			client := make(chan result, 1)
			go func() { client <- call(ctx, cc, method, userKey, "slow") }()
			await(t, entered)
			cancel()
			st := status.Convert(await(t, ended))
			type outcome struct {
				Server     codes.Code
				Msg        string
				Client     codes.Code
				HandlerRan int64
			}
			got := outcome{st.Code(), st.Message(), await(t, client).Code, e.calls.Load()}
			want := outcome{codes.Unavailable, "request ended while delayed", codes.Canceled, 0}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// contend holds the only seat of a server with a call of method from holder,
// blocked in its handler until release is called, then makes two more calls
// at once: whichever reaches the queue first waits there, the other is
// refused. It returns the refused call; release then returns the others in
// the order they end.
func contend(t *testing.T, cc *grpc.ClientConn, method, key string, entered <-chan string,
	holder string, others [2]string) (refused result, release func() []result) {
	t.Helper()
	ctx := guarded(t)
	results := make(chan result, 3)
	go func() { results <- call(ctx, cc, method, key, holder) }()
	if got := await(t, entered); got != holder {
		t.Fatalf("first handler run by %q; want %q", got, holder)
	}
	for _, user := range others {
		go func() { results <- call(ctx, cc, method, key, user) }()
	}
	refused = await(t, results)
	return refused, func() []result {
		t.Helper()
		return []result{await(t, results), await(t, results)}
	}
}

func TestFairQueueRPC(t *testing.T) {
	reg := prometheus.NewRegistry()
	q, err := NewFairQueue(FairQueueConfig{Concurrency: 1, Queues: 1, QueueLength: 1, RetryAfter: 3 * time.Second}, NewMetrics(reg))
	if err != nil {
		t.Fatal(err)
	}
	entered, unblock := make(chan string, 3), make(chan struct{})
	e := &echo{handle: func(ctx context.Context) error {
		entered <- userOfMetadata(ctx, userKey)
		<-unblock
		return nil
	}}
	cc := serveEcho(t, q.Interceptor(), e)

	refused, release := contend(t, cc, methodUnary, userKey, entered, "holder", [2]string{"b", "c"})
	want := result{refused.User, codes.ResourceExhausted, "too many requests: queue-full", []string{"3"}} // b or c
	if diff := cmp.Diff(want, refused); diff != "" {
		t.Errorf("refused call (-want +got):\n%s", diff)
	}
	// The refusal means the queue is full, and it stays so until the
	// holder is released.
	level := map[string]string{"priority_level": "default"}
	gauges := [2]float64{value(t, reg, inQueue, level), value(t, reg, executing, level)}
	if diff := cmp.Diff([2]float64{1, 1}, gauges); diff != "" {
		t.Errorf("[in queue, executing] while the seat is held (-want +got):\n%s", diff)
	}
	close(unblock)
	// The holder's and the queued call's replies may arrive either way round.
	admitted := release()
	got := map[string]codes.Code{refused.User: refused.Code}
	for _, r := range admitted {
		got[r.User] = r.Code
	}
	wantCodes := map[string]codes.Code{"holder": codes.OK, "b": codes.OK, "c": codes.OK}
	wantCodes[refused.User] = codes.ResourceExhausted
	if diff := cmp.Diff(wantCodes, got); diff != "" {
		t.Errorf("codes by user (-want +got):\n%s", diff)
	}
	if got := e.calls.Load(); got != 2 {
		t.Errorf("handler runs %d; want 2, the refused call not among them", got)
	}
	if got := value(t, reg, rejected, map[string]string{"reason": reasonFull}); got != 1 {
		t.Errorf("rejected{queue-full} = %v; want 1", got)
	}
}

// A queued call whose context ends leaves the queue refused, as a request
// does; a spy in front of the fair queue sees what it returns.
func TestFairQueueRPCCancelQueued(t *testing.T) {
	reg := prometheus.NewRegistry()
	q, err := NewFairQueue(FairQueueConfig{Concurrency: 1, Queues: 1}, NewMetrics(reg))
	if err != nil {
		t.Fatal(err)
	}
	entered, ended := make(chan struct{}, 1), make(chan error, 1)
	spy := interceptorFunc(func(ctx context.Context, next func(context.Context) error) error {
		if userOfMetadata(ctx, userKey) != "queued" {
			return next(ctx)
		}
		entered <- struct{}{}
		err := next(ctx)
		ended <- err
		return err
	})
	holding, unblock := make(chan struct{}, 1), make(chan struct{})
	e := &echo{handle: func(context.Context) error {
		holding <- struct{}{}
		<-unblock
		return nil
	}}
	cc := serveEcho(t, ChainRPC(spy, q.Interceptor()), e)
	ctx := guarded(t)

	holder := make(chan result, 1)
	go func() { holder <- call(ctx, cc, methodUnary, userKey, "holder") }()
	await(t, holding)
	qctx, qcancel := context.WithCancel(ctx)
	go call(qctx, cc, methodUnary, userKey, "queued")
	await(t, entered)
	qcancel() // the seat is held: the call is queued, or is about to be
	st := status.Convert(await(t, ended))
	close(unblock)
	if r := await(t, holder); r.Code != codes.OK {
		t.Errorf("holder: %v %s", r.Code, r.Msg)
	}
	got := [2]string{st.Code().String(), st.Message()}
	if diff := cmp.Diff([2]string{codes.ResourceExhausted.String(), "too many requests: cancelled"}, got); diff != "" {
		t.Errorf("queued call's status (-want +got):\n%s", diff)
	}
	if got := e.calls.Load(); got != 1 {
		t.Errorf("handler runs %d; want 1, the holder's", got)
	}
	if got := value(t, reg, rejected, map[string]string{"reason": reasonCancelled}); got != 1 {
		t.Errorf("rejected{cancelled} = %v; want 1", got)
	}
}

// A stream holds its seat from its start to its end, not per message.
func TestFairQueueRPCStream(t *testing.T) {
	reg := prometheus.NewRegistry()
	q, err := NewFairQueue(FairQueueConfig{Concurrency: 1, Queues: 1, QueueLength: 1, RetryAfter: 2 * time.Second}, NewMetrics(reg))
	if err != nil {
		t.Fatal(err)
	}
	cc := serveEcho(t, q.Interceptor(), &echo{})
	ctx := guarded(t)

	holder, err := openStream(metadata.AppendToOutgoingContext(ctx, userKey, "holder"), cc)
	if err != nil {
		t.Fatal(err)
	}
	if err := echoOnce(holder); err != nil { // now in the handler, on the only seat
		t.Fatal(err)
	}
	results := make(chan result, 2)
	for _, user := range []string{"b", "c"} {
		go func() { results <- call(ctx, cc, methodStream, userKey, user) }()
	}
	refused := await(t, results)
	refused.User = ""
	if diff := cmp.Diff(result{"", codes.ResourceExhausted, "too many requests: queue-full", []string{"2"}}, refused); diff != "" {
		t.Errorf("refused stream (-want +got):\n%s", diff)
	}
	// Between messages the holder keeps its seat.
	if err := echoOnce(holder); err != nil {
		t.Fatal(err)
	}
	if got := value(t, reg, executing, nil); got != 1 {
		t.Errorf("executing = %v; want 1", got)
	}
	if err := closeStream(holder); err != nil {
		t.Fatalf("closing the holder's stream: %v", err)
	}
	if r := await(t, results); r.Code != codes.OK {
		t.Errorf("queued stream: %v %s; want OK", r.Code, r.Msg)
	}
}

// Time inside synctest bubbles is virtual, so the durations below are exact.
func TestTrackRPC(t *testing.T) {
	sleepThen := func(d time.Duration, then func(ctx context.Context, next func(context.Context) error) error) Interceptor {
		return interceptorFunc(func(ctx context.Context, next func(context.Context) error) error {
			time.Sleep(d)
			return then(ctx, next)
		})
	}
	tests := []struct {
		name string
		ic   Interceptor
		want tracked
	}{
		{
			name: "sleeps before the handler",
			ic: sleepThen(2*time.Millisecond, func(ctx context.Context, next func(context.Context) error) error {
				defer time.Sleep(5 * time.Millisecond) // after B: not counted
				return next(ctx)
			}),
			want: tracked{Count: 1, Seconds: 0.002},
		},
		{name: "passthrough", ic: PassthroughRPC(), want: tracked{Count: 1}},
		{name: "zero interceptor is passthrough", ic: Interceptor{}, want: tracked{Count: 1}},
		{name: "delay", ic: DelayRPC("slow", "", 7*time.Millisecond), want: tracked{Count: 1, Seconds: 0.007}},
		{
			name: "ends the call itself",
			ic: sleepThen(time.Millisecond, func(context.Context, func(context.Context) error) error {
				return status.Error(codes.PermissionDenied, "no")
			}),
			want: tracked{Rejected: 1},
		},
		{
			name: "calls the handler twice",
			ic: sleepThen(3*time.Millisecond, func(ctx context.Context, next func(context.Context) error) error {
				_ = next(ctx)
				return next(ctx)
			}),
			want: tracked{Count: 1, Seconds: 0.003},
		},
		{
			name: "calls the handler from another goroutine",
			ic: interceptorFunc(func(ctx context.Context, next func(context.Context) error) error {
				var wg sync.WaitGroup
				wg.Go(func() {
					time.Sleep(4 * time.Millisecond)
					_ = next(ctx)
				})
				wg.Wait()
				return nil
			}),
			want: tracked{Count: 1, Seconds: 0.004},
		},
		{
			name: "drops the call's context",
			ic: sleepThen(time.Millisecond, func(_ context.Context, next func(context.Context) error) error {
				return next(context.Background())
			}),
			want: tracked{Count: 1, Seconds: 0.001},
		},
	}
	for _, tc := range tests {
		for _, stream := range []bool{false, true} {
			kind := map[bool]string{false: "unary", true: "stream"}[stream]
			t.Run(tc.name+"/"+kind, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					reg := prometheus.NewRegistry()
					ic := TrackRPC("f", NewMetrics(reg), tc.ic)
					invoke(incoming(t.Context(), "slow"), ic, stream, func(context.Context) error {
						time.Sleep(20 * time.Millisecond) // the handler's time is not the interceptor's
						return nil
					})
					got := trackedOf(t, reg, "f")
					if diff := cmp.Diff(tc.want, got, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
						t.Errorf("recorded (-want +got):\n%s", diff)
					}
				})
			})
		}
	}
}

func TestTrackRPCFuncs(t *testing.T) {
	funcs := func(ic Interceptor) [2]uintptr {
		return [2]uintptr{reflect.ValueOf(ic.Unary).Pointer(), reflect.ValueOf(ic.Stream).Pointer()}
	}
	delay := DelayRPC("slow", "", time.Second)
	if got, want := funcs(TrackRPC("f", nil, delay)), funcs(delay); got != want {
		t.Errorf("nil metrics: funcs %v; want the interceptor's own, %v", got, want)
	}
	zero := TrackRPC("f", nil, Interceptor{})
	for _, stream := range []bool{false, true} {
		called := false
		err := invoke(t.Context(), zero, stream, func(context.Context) error { called = true; return nil })
		if err != nil || !called {
			t.Errorf("zero interceptor, stream %v: error %v, handler called %v; want nil, true", stream, err, called)
		}
	}
	half := TrackRPC("f", NewMetrics(nil), Interceptor{Unary: PassthroughRPC().Unary})
	if half.Unary == nil || half.Stream != nil {
		t.Errorf("unary only: Unary set %v, Stream set %v; want true, false", half.Unary != nil, half.Stream != nil)
	}
}

// TestRPCServer runs the whole chain behind a real server on 127.0.0.1:
// DelayRPC and the fair queue, each tracked, one seat and one queue place.
func TestRPCServer(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := NewMetrics(reg)
	q, err := NewFairQueue(FairQueueConfig{Concurrency: 1, Queues: 1, QueueLength: 1, Header: "X-User", RetryAfter: 3 * time.Second}, m)
	if err != nil {
		t.Fatal(err)
	}
	ic := ChainRPC(
		TrackRPC("delay", m, DelayRPC("slow", "X-User", time.Millisecond)),
		TrackRPC("fairqueue", m, q.Interceptor()),
	)
	entered, unblock := make(chan string, 3), make(chan struct{})
	cc := serveEcho(t, ic, &echo{handle: func(ctx context.Context) error {
		entered <- userOfMetadata(ctx, "x-user")
		<-unblock
		return nil
	}})

	refused, release := contend(t, cc, methodUnary, "X-User", entered, "slow", [2]string{"fast", "late"})
	close(unblock)
	admitted := release()
	codesOf := []codes.Code{refused.Code, admitted[0].Code, admitted[1].Code}
	if diff := cmp.Diff([]codes.Code{codes.ResourceExhausted, codes.OK, codes.OK}, codesOf); diff != "" {
		t.Errorf("codes, refused call first (-want +got):\n%s", diff)
	}
	counts := map[string]float64{}
	for _, f := range []string{"delay", "fairqueue"} {
		tr := trackedOf(t, reg, f)
		counts[f+" observed"] = float64(tr.Count)
		counts[f+" rejected"] = tr.Rejected
	}
	want := map[string]float64{"delay observed": 3, "delay rejected": 0, "fairqueue observed": 2, "fairqueue rejected": 1}
	if diff := cmp.Diff(want, counts); diff != "" {
		t.Errorf("tracked interceptors (-want +got):\n%s", diff)
	}
	if sum := trackedOf(t, reg, "delay").Seconds; sum < 0.001 {
		t.Errorf("DelayRPC's B−A sums to %v s; want ≥ 1 ms (one delayed call)", sum)
	}
}

// benchUnary makes one unary call from user through ic to a trivial handler
// per iteration, calling the interceptor directly: no network, no codec.
func benchUnary(b *testing.B, ic Interceptor, user string) {
	b.Helper()
	ctx := incoming(context.Background(), user)
	info := &grpc.UnaryServerInfo{FullMethod: methodUnary}
	handler := func(ctx context.Context, req any) (any, error) { return req, nil }
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ic.Unary(ctx, nil, info, handler); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPassthroughRPC(b *testing.B) {
	benchUnary(b, PassthroughRPC(), "alice")
}

func BenchmarkTrackRPC(b *testing.B) {
	benchUnary(b, TrackRPC("passthrough", NewMetrics(prometheus.NewRegistry()), PassthroughRPC()), "alice")
}

// Three passthroughs chained: what ChainRPC adds per interceptor.
func BenchmarkChainRPC(b *testing.B) {
	benchUnary(b, ChainRPC(PassthroughRPC(), PassthroughRPC(), PassthroughRPC()), "alice")
}

func BenchmarkDelayRPCOtherUser(b *testing.B) {
	benchUnary(b, DelayRPC("slow", "", time.Second), "alice")
}

func BenchmarkFairQueueRPCUncontended(b *testing.B) {
	q, err := NewFairQueue(FairQueueConfig{}, NewMetrics(prometheus.NewRegistry()))
	if err != nil {
		b.Fatal(err)
	}
	benchUnary(b, q.Interceptor(), "alice")
}
