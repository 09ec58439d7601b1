package record

import (
	"bytes"
	"testing"
)

func TestKept(t *testing.T) {
	h := NewPacked()
	for v := int64(1000); v < 5_000_000; v += 777 {
		_ = h.RecordValue(v)
	}
	want, err := h.Encode()
	if err != nil {
		t.Fatal(err)
	}
	k, err := Keep(h)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := k.Encoded(); err != nil || !bytes.Equal(got, want) || k.Size() != len(want) {
		t.Errorf("kept %d bytes (%v), want the %d of the histogram's own encoding", len(got), err, len(want))
	}
	got, err := KeptEncoding(want).Histogram()
	if err != nil || got.TotalCount() != h.TotalCount() || got.Populated() != h.Populated() ||
		got.ValueAtPercentile(99) != h.ValueAtPercentile(99) {
		t.Errorf("decoded %v (%v), want the histogram kept", got, err)
	}

	var zero Kept
	if z, err := zero.Histogram(); err != nil || z.TotalCount() != 0 {
		t.Errorf("the zero Kept reads as %v (%v), want an empty histogram", z, err)
	}
	empty, _ := NewPacked().Encode()
	if b, err := zero.Encoded(); err != nil || !bytes.Equal(b, empty) {
		t.Errorf("the zero Kept encodes as %q (%v), want an empty histogram's %q", b, err, empty)
	}
	for _, enc := range [][]byte{nil, {}, []byte("not a histogram"), want[:len(want)/2]} {
		if _, err := KeptEncoding(enc).Histogram(); err == nil {
			t.Errorf("stored encoding %.20q decodes without error", enc)
		}
	}
}
