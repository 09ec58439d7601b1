package load

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/latlab/latlab/record"
)

// The URL schemes of gRPC calls: grpc://HOST:PORT/package.Service/Method
// over cleartext HTTP/2, grpcs:// over TLS.
const (
	schemeGRPC  = "grpc"
	schemeGRPCS = "grpcs"
)

// isRPC reports whether a request is a gRPC call.
func isRPC(u *url.URL) bool {
	return u != nil && (u.Scheme == schemeGRPC || u.Scheme == schemeGRPCS)
}

// rpcTransport carries gRPC calls, and hands every other request to the
// HTTP transport beside it, so that a scenario may mix the two. Each
// server's calls share Options.Connections HTTP/2 connections (one by
// default, as a gRPC client keeps), opened before the load; a session
// keeps to one of them, so that workers spread over them evenly.
type rpcTransport struct {
	o     Options
	http  Transport
	types *rpcTypes
	mu    sync.Mutex
	pools map[string]*rpcPool // by scheme and address
	next  atomic.Uint32       // the connection the next session takes
}

// An rpcPool is one server's connections. With a cap on streams, each has
// that many: a call takes one of its connection's, waiting for one when
// all are taken. Without, as a gRPC client does, only the server's
// MAX_CONCURRENT_STREAMS holds calls back, inside gRPC.
type rpcPool struct {
	addr    string
	conns   []*grpc.ClientConn
	streams []chan struct{} // by connection: a token per call in progress; nil without a cap
}

func newRPC(o Options, http Transport) (*rpcTransport, error) {
	types, err := newRPCTypes(o.Proto, o.ImportPaths, o.ProtoFiles)
	if err != nil {
		return nil, err
	}
	return &rpcTransport{o: o, http: http, types: types, pools: map[string]*rpcPool{}}, nil
}

// Session implements Transport.
func (t *rpcTransport) Session() Session {
	return &rpcSession{t: t, conn: int(t.next.Add(1) - 1)}
}

// Close implements Transport.
func (t *rpcTransport) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	var errs []error
	for _, p := range t.pools {
		for _, cc := range p.conns {
			errs = append(errs, cc.Close())
		}
	}
	t.pools = map[string]*rpcPool{}
	return errors.Join(append(errs, t.http.Close())...)
}

// pool returns the connections to u's server, opening them on first use.
func (t *rpcTransport) pool(u *url.URL) (*rpcPool, error) {
	key := u.Scheme + "://" + u.Host
	t.mu.Lock()
	defer t.mu.Unlock()
	if p := t.pools[key]; p != nil {
		return p, nil
	}
	opts := []grpc.DialOption{
		grpc.WithTransportCredentials(t.credentials(u)),
		grpc.WithDisableRetry(), // a call retried out of sight would hide its first failure
		grpc.WithUserAgent("latlab"),
		grpc.WithSharedWriteBuffer(true),
	}
	if t.o.UnixSocket != "" {
		sock := t.o.UnixSocket
		opts = append(opts, grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", sock)
		}))
	}
	n := max(t.o.Connections, 1)
	// Streams left at HTTP/2's default caps nothing: a gRPC client leaves
	// that to the server's MAX_CONCURRENT_STREAMS, and a cap the server
	// did not ask for would queue calls in latlab, not at the server.
	streams := t.o.Streams
	if streams == DefaultStreams {
		streams = 0
	}
	p := &rpcPool{addr: u.Host}
	for range n {
		cc, err := grpc.NewClient("passthrough:///"+u.Host, opts...)
		if err != nil {
			for _, c := range p.conns {
				c.Close()
			}
			return nil, fmt.Errorf("%s: %w", u.Host, err)
		}
		cc.Connect()
		p.conns = append(p.conns, cc)
		if streams > 0 {
			p.streams = append(p.streams, make(chan struct{}, streams))
		}
	}
	t.pools[key] = p
	return p, nil
}

func (t *rpcTransport) credentials(u *url.URL) credentials.TransportCredentials {
	if u.Scheme != schemeGRPCS {
		return insecure.NewCredentials()
	}
	c := t.o.TLS
	if c == nil {
		c = &tls.Config{}
	}
	c = c.Clone()
	c.NextProtos = nil // gRPC's credentials ask for h2 themselves
	return credentials.NewTLS(c)
}

// ready waits until p's connections are up, and returns why one is not
// when it failed (a TLS mismatch, a server that is not there), or nil.
func (p *rpcPool) ready(ctx context.Context) error {
	for _, cc := range p.conns {
		for {
			s := cc.GetState()
			if s == connectivity.Ready {
				break
			}
			if s == connectivity.TransientFailure {
				// A call that does not wait for a ready connection fails
				// at once with the connection's last error.
				err := cc.Invoke(ctx, "/latlab.Probe/Ready", new(rawMessage), new(rawReply), rawCall...)
				if st, ok := status.FromError(err); ok && st.Code() == codes.Unavailable {
					return fmt.Errorf("%s: %s", p.addr, st.Message())
				}
				break
			}
			if !cc.WaitForStateChange(ctx, s) {
				return fmt.Errorf("%s: not connected before the deadline (%s, the timeout, at most %s)", p.addr, s, rpcReadyTimeout)
			}
		}
	}
	return nil
}

// rpcReadyTimeout bounds the wait for a server's connections before the
// load, and for its reflection service's answer.
const rpcReadyTimeout = 10 * time.Second

// prepare resolves req's method and encodes its body, before the load:
// each request of a Static source is encoded once. The error names what
// is wrong (the method, the body, the connection).
func (t *rpcTransport) prepare(req *Request) error {
	ctx, cancel := context.WithTimeout(context.Background(), min(t.o.timeout(), rpcReadyTimeout))
	defer cancel()
	p, err := t.pool(req.URL)
	if err != nil {
		return err
	}
	if err := p.ready(ctx); err != nil {
		return err
	}
	m, err := t.types.method(ctx, p.addr, req.URL.Path, p.conns[0])
	if err != nil {
		return err
	}
	msg, err := m.encode(req.Body)
	if err != nil {
		return err
	}
	req.rpc, req.wire = m, msg
	return nil
}

// An rpcSession sends one call at a time on one of each server's
// connections.
type rpcSession struct {
	t     *rpcTransport
	conn  int
	http  Session    // for the requests that are not gRPC calls; opened on first use
	msg   rawMessage // the call's message and reply, kept here so that a call allocates neither
	reply rawReply

	firstIn time.Duration   // when a stream's first reply came, from its send; 0 before
	gaps    []time.Duration // a server stream's gaps between replies, reused
	// lastSend is when a stream's last message went, for its wait: the
	// messages of a bidirectional one go while its replies are read.
	lastSend atomic.Int64

	last    *rpcPool // the pool of the last call's URL, which a Static source's calls share
	lastURL *url.URL
}

// rawCall are the options of every call: messages go as they are.
var rawCall = []grpc.CallOption{grpc.ForceCodecV2(rawCodec{})}

// Do implements Session. A call that ends is counted by its gRPC status
// (record.GRPCCode): the server's or, when the call failed on the way,
// the one gRPC gives it (UNAVAILABLE, DEADLINE_EXCEEDED past the
// timeout). Only a call cut short by ctx is an error.
func (s *rpcSession) Do(ctx context.Context, req *Request, out *record.Sample) {
	if !isRPC(req.URL) {
		if s.http == nil {
			s.http = s.t.http.Session()
		}
		s.http.Do(ctx, req, out)
		return
	}
	p := s.last
	if p == nil || s.lastURL != req.URL {
		var err error
		if p, err = s.t.pool(req.URL); err != nil {
			nhFail(out, err)
			return
		}
		s.last, s.lastURL = p, req.URL
	}
	i := s.conn % len(p.conns)
	cc := p.conns[i]
	m, msg := req.rpc, req.wire
	var err error
	if m == nil { // built for this iteration
		if m, err = s.t.types.method(ctx, p.addr, req.URL.Path, cc); err == nil {
			msg, err = m.encode(req.Body)
		}
		if err != nil {
			nhFail(out, &nhClassed{err: err, class: errProtocol})
			return
		}
	}
	// With a cap, a call waits for a stream of its connection, as an
	// HTTP/2 request does: that wait is in its latency, not its service
	// time, and its timeout starts once it has one.
	if p.streams != nil {
		slot := p.streams[i]
		select {
		case slot <- struct{}{}:
		default:
			select {
			case slot <- struct{}{}:
			case <-ctx.Done():
				nhFail(out, ctx.Err())
				return
			}
		}
		defer func() { <-slot }()
	}
	// The timeout runs from the send, on the clock Sent is read from, so
	// that no call past it reads shorter than it.
	sent := time.Now()
	call, cancel := context.WithDeadline(ctx, sent.Add(s.t.o.timeout()))
	defer cancel()
	if len(req.Header) > 0 {
		call = metadata.NewOutgoingContext(call, rpcMetadata(req))
	}
	s.msg = msg
	out.Sent = sent.Sub(epoch)
	if !m.streaming {
		err = cc.Invoke(call, m.path, &s.msg, &s.reply, rawCall...)
		out.BytesOut, out.MsgsOut = int64(len(msg))+5, 1 // each message with its frame's prefix
		if err == nil {
			out.BytesIn, out.MsgsIn = int64(s.reply)+5, 1
		}
	} else {
		err = s.stream(call, cc, m, out)
	}
	out.Done = Now()
	if out.Wait > 0 { // a stream's first reply came: the rest of it is its read
		out.Read = out.Done - (out.Sent + s.firstIn)
	}
	if ctx.Err() != nil && err != nil {
		out.Error, out.Err = classify(ctx.Err()), err
		return
	}
	out.Code = record.GRPCCode(uint32(status.Code(err)))
}

// stream makes a streaming call: it sends the message Options.Messages
// times, Options.MessageGap apart, when the client streams (once when
// not), closes its side, and reads every reply until the server's status,
// which it returns. When both sides stream, replies are read as they come,
// while the messages go; otherwise once the client is done, when the
// server answers. Bytes count every message sent and read. The call's
// wait runs from the last message sent before its first reply to that
// reply, and its read from there to its status (set by Do): a server
// stream's time to its first message, and the time of the rest; a
// bidirectional one's first round trip, then the rest.
func (s *rpcSession) stream(ctx context.Context, cc *grpc.ClientConn, m *rpcMethod, out *record.Sample) error {
	s.firstIn = 0
	s.lastSend.Store(int64(out.Sent))
	desc := &grpc.StreamDesc{ClientStreams: m.desc.IsStreamingClient(), ServerStreams: m.desc.IsStreamingServer()}
	st, err := cc.NewStream(ctx, desc, m.path, rawCall...)
	if err != nil {
		return err
	}
	if !desc.ClientStreams || !desc.ServerStreams {
		s.send(ctx, st, desc, out)
		if err := st.CloseSend(); err != nil {
			return err
		}
		return s.receive(st, desc, out)
	}
	// gRPC lets one goroutine send on a stream while another reads it.
	got := make(chan error, 1)
	go func() { got <- s.receive(st, desc, out) }()
	s.send(ctx, st, desc, out)
	_ = st.CloseSend() // a stream that ended has its status read by receive
	return <-got
}

// send sends a stream's messages until they are all sent, the stream
// ends or ctx does (receive then reads the status either gave the call),
// and keeps the time of each send for receive. Of out it sets only the
// counts of what is sent, which receive does not touch.
func (s *rpcSession) send(ctx context.Context, st grpc.ClientStream, desc *grpc.StreamDesc, out *record.Sample) {
	n := 1
	if desc.ClientStreams {
		n = max(s.t.o.Messages, 1)
	}
	for i := range n {
		if i > 0 && s.t.o.MessageGap > 0 {
			t := time.NewTimer(s.t.o.MessageGap)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return
			}
		}
		if err := st.SendMsg(&s.msg); err != nil {
			return
		}
		s.lastSend.Store(int64(Now()))
		out.BytesOut += int64(len(s.msg)) + 5
		out.MsgsOut++
	}
}

// receive reads a stream's replies until its status, which it returns,
// or, when the server does not stream, its one reply. It sets the call's
// wait, from the last send before the first reply to that reply, and the
// gaps between replies.
func (s *rpcSession) receive(st grpc.ClientStream, desc *grpc.StreamDesc, out *record.Sample) error {
	var lastIn time.Duration
	s.gaps = s.gaps[:0]
	for {
		if err := st.RecvMsg(&s.reply); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		now := Now()
		if s.firstIn == 0 {
			s.firstIn, out.Wait = now-out.Sent, max(now-time.Duration(s.lastSend.Load()), 1)
		} else {
			s.gaps = append(s.gaps, now-lastIn)
			out.ReplyGaps = s.gaps
		}
		lastIn = now
		out.BytesIn += int64(s.reply) + 5
		out.MsgsIn++
		if !desc.ServerStreams {
			return nil
		}
	}
}

// Close implements Session.
func (s *rpcSession) Close() {
	if s.http != nil {
		s.http.Close()
	}
}

// rpcMetadata turns a request's headers into a call's metadata, with
// lower-case keys as HTTP/2 sends them.
func rpcMetadata(req *Request) metadata.MD {
	md := make(metadata.MD, len(req.Header))
	for k, vs := range req.Header {
		md.Append(k, vs...)
	}
	return md
}

// rawMessage is a request's encoded message, sent as it is.
type rawMessage []byte

// rawReply counts the bytes of a reply's message, which is discarded.
type rawReply int

// rawCodec sends encoded messages as they are and reads replies only to
// count them: a call costs no encoding or decoding during the load.
type rawCodec struct{}

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	m, ok := v.(*rawMessage)
	if !ok {
		return nil, fmt.Errorf("rawCodec: cannot send %T", v)
	}
	return mem.BufferSlice{mem.SliceBuffer(*m)}, nil
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	r, ok := v.(*rawReply)
	if !ok {
		return fmt.Errorf("rawCodec: cannot read into %T", v)
	}
	*r = rawReply(data.Len())
	return nil
}

func (rawCodec) Name() string { return "proto" }
