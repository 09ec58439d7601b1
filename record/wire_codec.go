package record

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// wireWriter writes the body of a result's encoding: integers as varints,
// floats as their IEEE 754 bits, strings and byte strings after their
// length, counts as a varint with -1 for nil. It keeps the first error,
// of bufio's or a histogram's, for Flush to report.
type wireWriter struct {
	w   *bufio.Writer
	buf [binary.MaxVarintLen64]byte
	err error
}

func (w *wireWriter) uvarint(v uint64) { _, _ = w.w.Write(binary.AppendUvarint(w.buf[:0], v)) }
func (w *wireWriter) varint(v int64)   { _, _ = w.w.Write(binary.AppendVarint(w.buf[:0], v)) }
func (w *wireWriter) float(f float64) {
	_, _ = w.w.Write(binary.LittleEndian.AppendUint64(w.buf[:0], math.Float64bits(f)))
}
func (w *wireWriter) u8(b byte)      { _ = w.w.WriteByte(b) }
func (w *wireWriter) boolean(b bool) { w.u8(boolByte(b)) }
func (w *wireWriter) str(s string)   { w.uvarint(uint64(len(s))); _, _ = w.w.WriteString(s) }
func (w *wireWriter) blob(b []byte)  { w.uvarint(uint64(len(b))); _, _ = w.w.Write(b) }
func (w *wireWriter) count(n int, isNil bool) {
	if isNil {
		w.varint(-1)
		return
	}
	w.varint(int64(n))
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// codes writes m sorted by code, so that one Result always encodes the
// same.
func (w *wireWriter) codes(m map[int]int64) {
	w.count(len(m), m == nil)
	for _, k := range sortedMapKeys(m) {
		w.varint(int64(k))
		w.varint(m[k])
	}
}

// counts writes m sorted by key.
func (w *wireWriter) counts(m map[string]int64) {
	w.count(len(m), m == nil)
	for _, k := range sortedMapKeys(m) {
		w.str(k)
		w.varint(m[k])
	}
}

// texts writes m sorted by key.
func (w *wireWriter) texts(m map[string]string) {
	w.count(len(m), m == nil)
	for _, k := range sortedMapKeys(m) {
		w.str(k)
		w.str(m[k])
	}
}

func sortedMapKeys[K int | string, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// histogram writes h, or that there is none: its V2 compressed encoding,
// then what V2 leaves out, its tag and its start and end times.
func (w *wireWriter) histogram(h *hdr.Histogram) {
	if h == nil {
		w.u8(0)
		return
	}
	enc, err := h.EncodeV2()
	if err != nil && w.err == nil {
		w.err = fmt.Errorf("encoding histogram: %w", err)
	}
	w.u8(1)
	w.blob(enc)
	w.str(h.Tag())
	w.varint(h.StartTimeMs())
	w.varint(h.EndTimeMs())
}

// kept writes k's encoding as it is, or that k is the zero Kept.
func (w *wireWriter) kept(k Kept) {
	if k.enc == nil {
		w.u8(0)
		return
	}
	w.u8(1)
	w.blob(k.enc)
}

// errTruncated is the cause of an encoding that ends early.
var errTruncated = errors.New("truncated")

// wireReader reads what wireWriter writes. It keeps the first error, with
// at, the part being read, and every read after it returns a zero value,
// so that a decoder checks once per item rather than once per field.
type wireReader struct {
	r       *bufio.Reader
	err     error
	at      string
	idx     int    // the item of at being read, or -1
	version uint64 // of the encoding
}

// fail records the first error, prefixed with the part being read.
func (r *wireReader) fail(format string, args ...any) {
	if r.err != nil {
		return
	}
	at := r.at
	if r.idx >= 0 {
		at = fmt.Sprintf("%s[%d]", r.at, r.idx)
	}
	r.err = fmt.Errorf("%s: %w", at, fmt.Errorf(format, args...))
}

// section names the part read from now on; idx is its item, or -1.
func (r *wireReader) section(at string, idx int) { r.at, r.idx = at, idx }

// ioError records err, a read's: io.EOF before the end is truncation.
func (r *wireReader) ioError(err error) {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		err = errTruncated
	}
	r.fail("%w", err)
}

func (r *wireReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, err := binary.ReadUvarint(r.r)
	if err != nil {
		r.ioError(err)
	}
	return v
}

func (r *wireReader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, err := binary.ReadVarint(r.r)
	if err != nil {
		r.ioError(err)
	}
	return v
}

func (r *wireReader) duration() time.Duration { return time.Duration(r.varint()) }

// integer reads a varint that must fit an int.
func (r *wireReader) integer() int {
	v := r.varint()
	if v < math.MinInt || v > math.MaxInt {
		r.fail("%d does not fit an int", v)
		return 0
	}
	return int(v)
}

func (r *wireReader) float() float64 {
	if r.err != nil {
		return 0
	}
	var b [8]byte
	if _, err := io.ReadFull(r.r, b[:]); err != nil {
		r.ioError(err)
		return 0
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(b[:]))
}

func (r *wireReader) u8() byte {
	if r.err != nil {
		return 0
	}
	b, err := r.r.ReadByte()
	if err != nil {
		r.ioError(err)
	}
	return b
}

func (r *wireReader) boolean() bool {
	switch b := r.u8(); b {
	case 0, 1:
		return b == 1
	default:
		r.fail("%d is not a boolean", b)
		return false
	}
}

// blob reads a byte string of at most limit bytes, what in errors.
func (r *wireReader) blob(limit int, what string) []byte {
	n := r.uvarint()
	if r.err != nil {
		return nil
	}
	if n > uint64(limit) {
		r.fail("%s of %d bytes: at most %d", what, n, limit)
		return nil
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r.r, b); err != nil {
		r.ioError(err)
		return nil
	}
	return b
}

func (r *wireReader) str(what string) string { return string(r.blob(maxWireString, what)) }

// count reads how many items follow, at most limit, and whether the slice
// or map they make is nil.
func (r *wireReader) count(limit int, what string) (n int, isNil bool) {
	v := r.varint()
	switch {
	case r.err != nil:
		return 0, false
	case v == -1:
		return 0, true
	case v < 0 || v > int64(limit):
		r.fail("%d %s: want 0 to %d", v, what, limit)
		return 0, false
	}
	return int(v), false
}

// capacity is what a slice of n items read from the encoding is made
// with: n, up to a bound, so that a count the data does not back never
// allocates more than the bound; past it the slice grows as items come.
func capacity(n int) int { return min(n, 1<<16) }

func (r *wireReader) codes() map[int]int64 {
	return readMap(r, "status codes", r.integer, r.varint)
}

func (r *wireReader) counts(what string) map[string]int64 {
	return readMap(r, what, func() string { return r.str(what) }, r.varint)
}

func (r *wireReader) texts(what string) map[string]string {
	return readMap(r, what, func() string { return r.str(what) }, func() string { return r.str(what) })
}

// readMap reads a map of at most maxWireEntries pairs, each a key and a
// value read by key and value, what in errors; a key twice is an error.
func readMap[K comparable, V any](r *wireReader, what string, key func() K, value func() V) map[K]V {
	n, isNil := r.count(maxWireEntries, what)
	if isNil || r.err != nil {
		return nil
	}
	m := make(map[K]V, capacity(n))
	for range n {
		k := key()
		v := value()
		if r.err != nil {
			return nil
		}
		if _, dup := m[k]; dup {
			r.fail("%s: %#v twice", what, k)
			return nil
		}
		m[k] = v
	}
	return m
}

// histogram reads what wireWriter.histogram writes, what in errors.
func (r *wireReader) histogram(what string) *hdr.Histogram {
	if present := r.boolean(); !present || r.err != nil {
		return nil
	}
	enc := r.blob(maxWireHistogram, what+" histogram")
	tag := r.str(what + " histogram's tag")
	start, end := r.varint(), r.varint()
	if r.err != nil {
		return nil
	}
	if err := checkGeometry(enc); err != nil {
		r.fail("%s histogram: %w", what, err)
		return nil
	}
	h, err := hdr.Decode(enc)
	if err != nil {
		r.fail("%s histogram: %w", what, err)
		return nil
	}
	h.SetTag(tag)
	h.SetStartTimeMs(start)
	h.SetEndTimeMs(end)
	return h
}

// kept reads what wireWriter.kept writes. The encoding is kept as it
// came, once its header shows latlab's range and precision; an empty one
// is kept empty, as KeptEncoding keeps it.
func (r *wireReader) kept(what string) Kept {
	if present := r.boolean(); !present || r.err != nil {
		return Kept{}
	}
	enc := r.blob(maxWireHistogram, what+" histogram")
	if r.err != nil {
		return Kept{}
	}
	if len(enc) > 0 {
		if err := checkGeometry(enc); err != nil {
			r.fail("%s histogram: %w", what, err)
			return Kept{}
		}
	}
	return KeptEncoding(enc)
}

// v2Header is the size of the header inside a V2 encoding's compressed
// contents: cookie, payload length, index offset, digits, lowest and
// highest value, and the conversion ratio.
const v2Header = 40

// checkGeometry reads the header of enc, a histogram's V2 compressed
// encoding, and refuses a range or precision other than latlab's:
// decoding a histogram allocates its whole counts array, which a header
// can make hundreds of megabytes.
func checkGeometry(enc []byte) error {
	raw := make([]byte, base64.StdEncoding.DecodedLen(len(enc)))
	n, err := base64.StdEncoding.Decode(raw, enc)
	if err != nil {
		return fmt.Errorf("not a V2 histogram encoding: %w", err)
	}
	raw = raw[:n]
	if len(raw) < 8 {
		return fmt.Errorf("not a V2 histogram encoding: %d bytes", len(raw))
	}
	z, err := zlib.NewReader(bytes.NewReader(raw[8:]))
	if err != nil {
		return fmt.Errorf("not a V2 histogram encoding: %w", err)
	}
	var h [v2Header]byte
	if _, err := io.ReadFull(z, h[:]); err != nil {
		return fmt.Errorf("not a V2 histogram encoding: header: %w", err)
	}
	digits := int64(binary.BigEndian.Uint32(h[12:16]))
	lo := int64(binary.BigEndian.Uint64(h[16:24]))
	hi := int64(binary.BigEndian.Uint64(h[24:32]))
	if lo != lowest || hi != highest || digits != sigfigs {
		return fmt.Errorf("range %d to %d ns at %d significant digits, not latlab's %d to %d at %d", lo, hi, digits, lowest, highest, sigfigs)
	}
	return nil
}
