//go:build linux

package load

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/latlab/latlab/record"
)

// connState is where a connection of an event loop stands.
type connState uint8

const (
	connIdle    connState = iota // open, kept for the next request
	connDialing                  // connecting
	connWriting                  // writing a request that did not fit at once
	connReading                  // waiting for and reading a response
	connClosed
)

// evconn is one connection of an event loop, and the request it carries.
type evconn struct {
	fd    int
	slot  int32
	key   string
	addr  net.Addr
	to    *dialAddrs // where it connects
	try   int        // the address of to it tries, or connected to
	tries int        // addresses that failed
	err   error      // why the dial failed before it began
	state connState
	busy  bool // carries a request
	used  bool // carried a request before
	fresh bool // dialed to send a request again: no second retry
	// untried: opened for a request during the run, no response yet
	untried bool
	ahead   bool // opened during the run for none yet (growAhead)
	wout    bool // waits for EPOLLOUT: a request is partly written

	dialAt   time.Duration
	deadline time.Duration
	reused   bool // the request went out on a used connection

	j      evjob
	s      record.Sample
	resp   response
	inHead bool
	rd     reader
	out    []byte // request bytes not written yet
	tmp    []byte // wire bytes of a request that was not prepared
}

// dialAddrs are the addresses of a dial key, resolved once per loop: a
// connection tries them in turn, from the last that worked.
type dialAddrs struct {
	list []sockAddr
	pref int // index of the address that worked last
	err  error
}

// sockAddr is one address to connect to.
type sockAddr struct {
	family int
	sa     unix.Sockaddr
	addr   net.Addr
}

// resolve returns where key's connections go.
func (l *evloop) resolve(key string) *dialAddrs {
	if a, ok := l.addrs[key]; ok {
		return a
	}
	a := &dialAddrs{}
	l.addrs[key] = a
	if p := l.e.o.UnixSocket; p != "" {
		a.list = []sockAddr{{unix.AF_UNIX, &unix.SockaddrUnix{Name: p}, &net.UnixAddr{Name: p, Net: "unix"}}}
		return a
	}
	_, hostport, _ := strings.Cut(key, "://")
	host, port, err := net.SplitHostPort(hostport)
	var pn int
	var ips []net.IPAddr
	if err == nil {
		pn, err = net.LookupPort("tcp", port)
	}
	if err == nil {
		ips, err = net.DefaultResolver.LookupIPAddr(context.Background(), host)
	}
	if err != nil {
		a.err = &net.OpError{Op: "dial", Net: "tcp", Err: err}
		return a
	}
	for _, ip := range ips {
		ta := &net.TCPAddr{IP: ip.IP, Port: pn, Zone: ip.Zone}
		if ip4 := ip.IP.To4(); ip4 != nil {
			sa := &unix.SockaddrInet4{Port: pn}
			copy(sa.Addr[:], ip4)
			a.list = append(a.list, sockAddr{unix.AF_INET, sa, ta})
			continue
		}
		sa := &unix.SockaddrInet6{Port: pn}
		copy(sa.Addr[:], ip.IP.To16())
		if ip.Zone != "" {
			if ifi, err := net.InterfaceByName(ip.Zone); err == nil {
				sa.ZoneId = uint32(ifi.Index)
			}
		}
		a.list = append(a.list, sockAddr{unix.AF_INET6, sa, ta})
	}
	if len(a.list) == 0 {
		a.err = &net.OpError{Op: "dial", Net: "tcp", Err: &net.AddrError{Err: "no address", Addr: host}}
	}
	return a
}

// dial starts opening a connection to key; the caller counted it in open.
// A dial that fails at once keeps its error in err, for begin to report.
func (l *evloop) dial(key string) *evconn {
	c := &evconn{fd: -1, key: key, state: connDialing}
	l.dials++
	c.rd.buf, c.rd.nb = make([]byte, readBufSize), true
	l.addSlot(c)
	c.dialAt = Now()
	c.deadline = c.dialAt + l.e.timeout
	c.to = l.resolve(key)
	if c.to.err != nil {
		c.err = c.to.err
		return c
	}
	c.try = c.to.pref
	c.err = l.connect(c)
	return c
}

// connect opens c's socket to the address it tries and starts connecting.
func (l *evloop) connect(c *evconn) error {
	a := c.to.list[c.try]
	c.addr = a.addr
	fd, err := unix.Socket(a.family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return &net.OpError{Op: "dial", Net: "tcp", Addr: a.addr, Err: os.NewSyscallError("socket", err)}
	}
	c.fd = fd
	if a.family != unix.AF_UNIX {
		_ = unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	}
	stamp(fd)
	if err := unix.Connect(fd, a.sa); err != nil && err != unix.EINPROGRESS {
		return &net.OpError{Op: "dial", Net: "tcp", Addr: a.addr, Err: os.NewSyscallError("connect", err)}
	}
	// Writable once connected (or failed): ready takes it from there.
	if err := l.ctl(unix.EPOLL_CTL_ADD, c, unix.EPOLLIN|unix.EPOLLOUT|unix.EPOLLRDHUP); err != nil {
		return &net.OpError{Op: "dial", Net: "tcp", Addr: a.addr, Err: os.NewSyscallError("epoll_ctl", err)}
	}
	return nil
}

// redial moves c on to the next of its addresses after its connect
// failed, and reports false when it has tried them all.
func (l *evloop) redial(c *evconn) bool {
	c.tries++
	if c.tries >= len(c.to.list) {
		return false
	}
	unix.Close(c.fd)
	c.fd = -1
	l.gens[c.slot]++ // events of the closed socket are stale
	c.try = (c.try + 1) % len(c.to.list)
	if err := l.connect(c); err != nil {
		return l.redial(c)
	}
	return true
}

// ctl adds c to the loop's epoll set or changes the events it waits for.
func (l *evloop) ctl(op int, c *evconn, events uint32) error {
	ev := unix.EpollEvent{Events: events, Fd: c.slot, Pad: l.gens[c.slot]}
	return unix.EpollCtl(l.epfd, op, c.fd, &ev)
}

// begin sends j's request on c, once c is open.
func (c *evconn) begin(l *evloop, j evjob) {
	c.busy = true
	l.busy++
	l.peak = max(l.peak, l.busy)
	c.j = j
	c.s = record.Sample{Intended: j.due, Step: j.step}
	if c.state == connDialing {
		// The request's send starts with its connection: opening one
		// is the target's work, not the generator's lag.
		c.s.Sent = c.dialAt
		if c.err != nil {
			c.fail(l, c.err)
		}
		return
	}
	c.s.Sent = Now()
	c.send(l, c.s.Sent)
}

// send writes the request of c's job; now is the time on the package
// clock.
func (c *evconn) send(l *evloop, now time.Duration) {
	req := c.j.req
	wire := req.wire
	if wire == nil {
		c.tmp = appendWire(c.tmp[:0], req, l.e.o.NoKeepAlive)
		wire = c.tmp
	}
	c.reused, c.used = c.used, true
	c.deadline = now + l.e.timeout
	c.inHead, c.resp = true, response{}
	rd := &c.rd
	rd.r, rd.w, rd.n, rd.wroteAt, rd.firstAt, rd.body = 0, 0, 0, 0, 0, bodyDone
	c.state = connWriting
	c.out = wire
	c.write(l)
}

// write writes what is left of the request.
func (c *evconn) write(l *evloop) {
	n, err := rawIO(unix.SYS_WRITE, c.fd, c.out)
	if n > 0 {
		c.s.BytesOut += int64(n)
		c.out = c.out[n:]
	}
	switch {
	case err != nil && err != unix.EAGAIN:
		c.fail(l, &net.OpError{Op: "write", Net: "tcp", Addr: c.addr, Err: os.NewSyscallError("write", err)})
	case len(c.out) > 0:
		if !c.wout {
			c.wout = true
			if err := l.ctl(unix.EPOLL_CTL_MOD, c, unix.EPOLLIN|unix.EPOLLOUT|unix.EPOLLRDHUP); err != nil {
				c.fail(l, err)
			}
		}
	default:
		c.rd.wroteAt = Now()
		c.state = connReading
		if c.wout {
			c.wout = false
			if err := l.ctl(unix.EPOLL_CTL_MOD, c, unix.EPOLLIN|unix.EPOLLRDHUP); err != nil {
				c.fail(l, err)
			}
		}
	}
}

// rawIO reads or writes b on the non-blocking descriptor fd. It never
// blocks, so it skips the Go scheduler's bookkeeping of a system call that
// might.
func rawIO(trap uintptr, fd int, b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	for {
		n, _, errno := unix.RawSyscall(trap, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
		switch {
		case errno == unix.EINTR:
			continue
		case errno != 0:
			return 0, errno
		}
		return int(n), nil
	}
}

// ready handles the epoll events of c.
func (c *evconn) ready(l *evloop, events uint32) {
	switch c.state {
	case connDialing:
		if events&(unix.EPOLLOUT|unix.EPOLLERR|unix.EPOLLHUP) == 0 {
			return
		}
		if errno, err := unix.GetsockoptInt(c.fd, unix.SOL_SOCKET, unix.SO_ERROR); err != nil || errno != 0 {
			if err == nil {
				err = unix.Errno(errno)
			}
			failed := &net.OpError{Op: "dial", Net: "tcp", Addr: c.addr, Err: os.NewSyscallError("connect", err)}
			if !l.redial(c) {
				c.fail(l, failed)
			}
			return
		}
		c.to.pref = c.try
		if err := l.ctl(unix.EPOLL_CTL_MOD, c, unix.EPOLLIN|unix.EPOLLRDHUP); err != nil {
			c.fail(l, err)
			return
		}
		l.dials--
		c.state = connIdle
		now := Now()
		l.dialed(now - c.dialAt)
		if !c.busy { // opened for the pool
			if c.ahead {
				l.r.rec.Connected(now - c.dialAt)
			}
			l.putIdle(c)
			if l.r != nil {
				l.pump()
			}
			return
		}
		c.s.Connect = now - c.dialAt
		c.send(l, now)
	case connWriting:
		if events&(unix.EPOLLOUT|unix.EPOLLERR|unix.EPOLLHUP) != 0 {
			c.write(l)
		}
	case connReading:
		c.receive(l)
	case connIdle:
		// The server closed a kept connection, or sent what nobody asked
		// for: either way it is done, and the pool grows ahead no more
		// (growAhead), lest it open what the server closes for ever.
		l.unidle(c)
		l.drop(c)
		l.aheadOff = true
	}
}

// receive reads what arrived for c's response and parses it.
func (c *evconn) receive(l *evloop) {
	rd := &c.rd
	if rd.w == len(rd.buf) {
		if rd.r > 0 {
			rd.w = copy(rd.buf, rd.buf[rd.r:rd.w])
			rd.r = 0
		} else {
			nb := make([]byte, 2*len(rd.buf))
			copy(nb, rd.buf[:rd.w])
			rd.buf = nb
		}
	}
	n, at, err := l.recv(c.fd, rd.buf[rd.w:])
	switch {
	case err == unix.EAGAIN:
		return
	case err != nil:
		c.fail(l, &net.OpError{Op: "read", Net: "tcp", Addr: c.addr, Err: os.NewSyscallError("read", err)})
		return
	case n == 0:
		switch {
		case !c.inHead && rd.body == bodyClose:
			l.took = Now()
			c.done(l, l.took)
		case c.inHead && rd.w == 0:
			c.fail(l, io.EOF)
		default:
			c.fail(l, io.ErrUnexpectedEOF)
		}
		return
	}
	// When the read's last bytes arrived: the response's end if it is
	// whole.
	l.took = Now()
	now := l.stamped(at, c.s.Sent, l.took)
	if rd.firstAt == 0 {
		rd.firstAt = now
	}
	rd.w += n
	if c.inHead {
		err := rd.readHead(&c.resp)
		if err == errMore {
			rd.r, rd.n = 0, 0 // parse the head again when more has come
			return
		}
		if err != nil {
			c.fail(l, err)
			return
		}
		c.s.Code = c.resp.code
		rd.startBody(&c.resp, c.j.req.Method == http.MethodHead)
		c.inHead = false
	}
	err = rd.bodyStep()
	if err == errMore {
		err = rd.fill(maxLineSize)
	}
	switch {
	case err == errMore:
	case err != nil:
		c.fail(l, err)
	default:
		c.done(l, now)
	}
}

// done ends c's request with its response complete, read in full at now.
func (c *evconn) done(l *evloop, now time.Duration) {
	s := &c.s
	s.Done = now
	s.BytesIn += c.rd.n
	// A stamp can come before the write's return was seen: the response
	// arrived while the write's system call was still returning.
	s.Wait, s.Read = breakdown(min(c.rd.wroteAt, c.rd.firstAt), c.rd.firstAt, s.Done)
	keep := c.resp.keepAlive && c.rd.r == c.rd.w && !l.e.o.NoKeepAlive && c.resp.code != 101
	j, done := c.j, s.Done
	l.served(s.Done - s.Sent)
	l.record(s)
	if c.untried {
		c.untried = false
		l.untried--
	}
	c.fresh = false // it carried a response: a request it fails may go again
	c.j = evjob{}
	if keep {
		c.busy = false
		l.busy--
		l.putIdle(c)
	} else {
		// A connection that carries one request: no pool to grow ahead.
		l.drop(c)
		l.aheadOff = true
	}
	l.then(j, done)
	l.pump()
}

// fail ends c's request with err and closes c. A request on a kept
// connection that the server had closed goes again, once, on a new one.
func (c *evconn) fail(l *evloop, err error) {
	busy, j, s := c.busy, c.j, c.s
	retry := busy && c.reused && !c.fresh && c.rd.n == 0 && c.state != connDialing && isClosed(err)
	l.drop(c)
	if !busy {
		l.aheadOff = true // a dial for the pool failed: see growAhead
		return
	}
	if retry {
		s.Retries++
		l.open++
		nc := l.dial(j.key)
		nc.fresh = true
		nc.busy = true
		l.busy++
		nc.j, nc.s = j, s
		if nc.err != nil {
			nc.fail(l, nc.err)
		}
		return
	}
	now := Now()
	l.took = now
	if s.Sent == 0 {
		s.Sent = now
	}
	s.Done = now
	s.BytesIn += c.rd.n
	s.Error, s.Err = classify(err), err
	l.record(&s)
	l.then(j, now)
	l.pump()
}
