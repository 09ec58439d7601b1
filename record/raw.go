package record

import "time"

// Raw is one request as stored raw: 40 bytes, so that a million of them
// fit in 40 MB. Times are offsets from the run's start.
type Raw struct {
	Intended time.Duration
	Sent     time.Duration
	Done     time.Duration
	BytesIn  int64
	BytesOut int32
	Code     uint16
	Error    ErrorClass
	Step     uint8
}

// rawChunk is how many raw samples a shard allocates at a time.
const rawChunk = 4096

// rawBuf collects raw samples in chunks, so that growing never copies.
type rawBuf struct {
	chunks [][]Raw
}

func (b *rawBuf) add(s *Sample) {
	n := len(b.chunks)
	if n == 0 || len(b.chunks[n-1]) == cap(b.chunks[n-1]) {
		b.chunks = append(b.chunks, make([]Raw, 0, rawChunk))
		n++
	}
	bytesOut := s.BytesOut
	if bytesOut > 1<<31-1 {
		bytesOut = 1<<31 - 1
	}
	code := s.Code
	if code < 0 || code > 65535 {
		code = 0
	}
	b.chunks[n-1] = append(b.chunks[n-1], Raw{
		Intended: s.Intended, Sent: s.Sent, Done: s.Done,
		BytesIn: s.BytesIn, BytesOut: int32(bytesOut), Code: uint16(code),
		Error: s.Error, Step: uint8(min(s.Step, 255)),
	})
}

// len returns the number of samples held.
func (b *rawBuf) len() int {
	n := 0
	for _, c := range b.chunks {
		n += len(c)
	}
	return n
}

func (b *rawBuf) appendTo(out []Raw) []Raw {
	for _, c := range b.chunks {
		out = append(out, c...)
	}
	return out
}
