package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// A container's log is a file in the CRI format that containerd writes
// and the kubelet reads: one record a line,
//
//	2024-05-01T10:00:00.123456789Z stdout F the line
//
// where F ends a line and P is a piece of a longer one.
const (
	maxRecord = 16 << 10 // bytes of a line per record; longer lines are split
)

// logFile is the log of one run of a container. Its copiers append to it
// while followers read it; it is safe for concurrent use.
type logFile struct {
	path string

	mu      sync.Mutex
	f       *os.File
	closed  bool
	changed chan struct{} // closed, and replaced, at every write and at close
}

func newLogFile(path string) (*logFile, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	return &logFile{path: path, f: f, changed: make(chan struct{})}, nil
}

// record appends one record.
func (l *logFile) record(t time.Time, stream string, partial bool, content []byte) {
	tag := "F"
	if partial {
		tag = "P"
	}
	line := make([]byte, 0, len(content)+64)
	line = t.UTC().AppendFormat(line, time.RFC3339Nano)
	line = fmt.Appendf(line, " %s %s ", stream, tag)
	line = append(line, content...)
	line = append(line, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	_, _ = l.f.Write(line)
	close(l.changed)
	l.changed = make(chan struct{})
}

// copyFrom appends what r yields, a record a line, until r ends.
func (l *logFile) copyFrom(stream string, r io.Reader) {
	br := bufio.NewReaderSize(r, maxRecord)
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 {
			full := line[len(line)-1] == '\n'
			if full {
				line = line[:len(line)-1]
			}
			// A piece without its newline is partial unless the stream
			// ended there.
			l.record(time.Now(), stream, !full && err != io.EOF, line)
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return
		}
	}
}

// close ends the log: followers stop once they have read it all.
func (l *logFile) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	l.closed = true
	l.f.Close()
	close(l.changed)
}

// state returns whether the log is closed and a channel closed at its
// next change.
func (l *logFile) state() (bool, <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.closed, l.changed
}

// logRecord is one parsed record.
type logRecord struct {
	time    time.Time
	stream  string
	partial bool
	content []byte
}

// parseRecord parses one line of a log file, without its newline.
func parseRecord(line []byte) (logRecord, error) {
	var r logRecord
	ts, rest, ok := bytes.Cut(line, []byte(" "))
	if !ok {
		return r, fmt.Errorf("log record %q: no stream", line)
	}
	t, err := time.Parse(time.RFC3339Nano, string(ts))
	if err != nil {
		return r, fmt.Errorf("log record %q: %w", line, err)
	}
	stream, rest, ok := bytes.Cut(rest, []byte(" "))
	if !ok || (string(stream) != "stdout" && string(stream) != "stderr") {
		return r, fmt.Errorf("log record %q: no stream", line)
	}
	tag, content, ok := bytes.Cut(rest, []byte(" "))
	if !ok || (string(tag) != "F" && string(tag) != "P") {
		return r, fmt.Errorf("log record %q: no tag", line)
	}
	return logRecord{time: t, stream: string(stream), partial: string(tag) == "P", content: content}, nil
}

// logOptions are the kubelet's /containerLogs parameters. The zero value
// means the whole log, once, without timestamps.
type logOptions struct {
	follow     bool
	timestamps bool
	tail       int64     // lines from the end; < 0 for all
	limit      int64     // bytes at most; 0 for no limit
	since      time.Time // records before it are left out
}

// logWriter writes log lines to w as the options ask, counting bytes
// against the limit.
type logWriter struct {
	w       io.Writer
	opt     logOptions
	written int64
	line    []byte    // a line whose pieces are still coming
	start   time.Time // the time of the line's first piece
}

var errLimit = errors.New("limitBytes reached")

// add takes one record; it returns errLimit once the limit is reached.
func (lw *logWriter) add(r logRecord) error {
	if !lw.opt.since.IsZero() && r.time.Before(lw.opt.since) {
		return nil
	}
	if len(lw.line) == 0 {
		lw.start = r.time
	}
	lw.line = append(lw.line, r.content...)
	if r.partial {
		return nil
	}
	out := lw.line
	if lw.opt.timestamps {
		out = append(lw.start.UTC().AppendFormat(nil, time.RFC3339Nano), ' ')
		out = append(out, lw.line...)
	}
	out = append(out, '\n')
	lw.line = lw.line[:0]
	if lw.opt.limit > 0 && lw.written+int64(len(out)) >= lw.opt.limit {
		out = out[:lw.opt.limit-lw.written]
		_, err := lw.w.Write(out)
		lw.written = lw.opt.limit
		if err != nil {
			return err
		}
		return errLimit
	}
	n, err := lw.w.Write(out)
	lw.written += int64(n)
	return err
}

// readRecords parses the complete lines of b and returns them with the
// bytes it used.
func readRecords(b []byte) ([]logRecord, int) {
	var recs []logRecord
	used := 0
	for {
		i := bytes.IndexByte(b[used:], '\n')
		if i < 0 {
			return recs, used
		}
		if r, err := parseRecord(b[used : used+i]); err == nil {
			recs = append(recs, r)
		}
		used += i + 1
	}
}

// tailRecords returns the records of the last n lines of recs.
func tailRecords(recs []logRecord, n int64) []logRecord {
	if n < 0 {
		return recs
	}
	lines := int64(0)
	for i := len(recs) - 1; i >= 0; i-- {
		// A line ends at each full record; the one the log ends in may
		// still be partial.
		if !recs[i].partial || i == len(recs)-1 {
			if lines == n {
				return recs[i+1:]
			}
			lines++
		}
	}
	return recs
}

// writeLog writes l to w as opt asks, calling flush after each batch;
// with follow, it keeps writing what the container adds until the log is
// closed or done is.
func writeLog(w io.Writer, flush func(), l *logFile, opt logOptions, done <-chan struct{}) error {
	f, err := os.Open(l.path)
	if err != nil {
		return err
	}
	defer f.Close()
	lw := &logWriter{w: w, opt: opt}
	var pending []byte
	first := true
	buf := make([]byte, 64<<10)
	for {
		closed, changed := l.state()
		// Read all there is, then write its complete lines.
		for {
			n, err := f.Read(buf)
			pending = append(pending, buf[:n]...)
			if err != nil || n == 0 {
				break
			}
		}
		recs, used := readRecords(pending)
		pending = pending[used:]
		if first {
			recs, first = tailRecords(recs, opt.tail), false
		}
		for _, r := range recs {
			if err := lw.add(r); err != nil {
				flush()
				if errors.Is(err, errLimit) {
					return nil
				}
				return err
			}
		}
		flush()
		if !opt.follow || closed {
			return nil
		}
		select {
		case <-changed:
		case <-done:
			return nil
		}
	}
}
