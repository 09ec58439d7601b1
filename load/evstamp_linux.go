//go:build linux

package load

import (
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Arrival stamps. Each connection of an event loop asks the kernel to stamp
// what it receives (SO_TIMESTAMPNS), and a loop reads with recvmsg: a
// response then ends when its last bytes reached the socket, not when the
// loop came round to read them. Busy loops lean on that to sleep through
// arrivals (see evloop.deaf) without adding the sleep to any latency.

const sizeofTimespec = unsafe.Sizeof(unix.Timespec{})

// stampBuf is the control buffer of one read: room for one timestamp
// message, aligned as control messages are.
type stampBuf [(unix.SizeofCmsghdr + sizeofTimespec + 7) / 8]uint64

// stamp asks the kernel to stamp what fd receives. Where it cannot, reads
// carry no stamp and the loop keeps waking for arrivals.
func stamp(fd int) {
	_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
}

// recv reads from the non-blocking descriptor fd into b, as rawIO does, and
// returns with what it read when its last bytes arrived on the package
// clock, or 0 when the kernel gave no stamp.
func (l *evloop) recv(fd int, b []byte) (int, time.Duration, error) {
	if len(b) == 0 {
		return 0, 0, nil
	}
	l.iov.Base, l.iov.Len = &b[0], uint64(len(b))
	l.msg.Iov, l.msg.Iovlen = &l.iov, 1
	l.msg.Control, l.msg.Controllen = (*byte)(unsafe.Pointer(&l.oob[0])), uint64(len(l.oob)*8)
	l.msg.Flags = 0
	for {
		n, _, errno := unix.RawSyscall(unix.SYS_RECVMSG, uintptr(fd), uintptr(unsafe.Pointer(&l.msg)), 0)
		switch {
		case errno == unix.EINTR:
			continue
		case errno != 0:
			return 0, 0, errno
		}
		return int(n), l.arrival(), nil
	}
}

// arrival returns the stamp of the last read on the package clock, 0 when
// it carried none.
func (l *evloop) arrival() time.Duration {
	if l.msg.Controllen < uint64(unix.SizeofCmsghdr+sizeofTimespec) {
		return 0
	}
	h := (*unix.Cmsghdr)(unsafe.Pointer(&l.oob[0]))
	if h.Level != unix.SOL_SOCKET || h.Type != unix.SO_TIMESTAMPNS || h.Len < uint64(unix.SizeofCmsghdr+sizeofTimespec) {
		return 0
	}
	ts := (*unix.Timespec)(unsafe.Pointer(&l.oob[unix.SizeofCmsghdr/8]))
	if ts.Sec == 0 && ts.Nsec == 0 {
		return 0
	}
	return time.Duration(ts.Nano()) - l.wall
}

// tick returns the time on the package clock and, from the same reading,
// notes how far the wall clock (the kernel's stamps) is ahead of it.
func (l *evloop) tick() time.Duration {
	t := time.Now()
	now := t.Sub(epoch)
	l.wall = time.Duration(t.UnixNano()) - now
	return now
}

// stamped returns when a read that ended at now received its last bytes:
// its stamp at, when the kernel gave one that is no later than now and no
// earlier than from (the request's send), else now. The loop sleeps
// through arrivals only while its last read carried a believable stamp:
// none comes from a unix socket, nor for a moment after the first socket
// of the machine asks for them (the kernel turns stamping on in the
// background).
func (l *evloop) stamped(at, from, now time.Duration) time.Duration {
	const slack = time.Microsecond // the two clocks are read apart
	l.stamps = at != 0 && at <= now+slack && at >= from-slack
	if !l.stamps {
		return now
	}
	return min(max(at, from), now)
}
