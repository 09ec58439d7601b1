package record

import (
	"bytes"
	"compress/gzip"
	"io"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// wireSeeds returns encodings of a few results: zero, recorded, and
// filled in every field.
func wireSeeds(f *testing.F) [][]byte {
	filled := &Result{}
	fill(f, reflect.ValueOf(filled).Elem(), rand.New(rand.NewPCG(1, 2)), "Result")
	var out [][]byte
	for _, r := range []*Result{{}, recorded(f), filled} {
		var buf bytes.Buffer
		if err := EncodeResult(&buf, r); err != nil {
			f.Fatal(err)
		}
		out = append(out, buf.Bytes())
	}
	return out
}

// checkDecoded fails t unless DecodeResult of in keeps its promise: an
// error, or a result that encodes and decodes back to itself.
func checkDecoded(t *testing.T, in []byte) {
	r, err := DecodeResult(bytes.NewReader(in))
	if err != nil {
		if err.Error() == "" {
			t.Fatal("empty error")
		}
		return
	}
	var buf bytes.Buffer
	if err := EncodeResult(&buf, r); err != nil {
		t.Fatalf("a decoded result does not encode: %v", err)
	}
	again, err := DecodeResult(&buf)
	if err != nil {
		t.Fatalf("a decoded result, encoded again, does not decode: %v", err)
	}
	if diff := cmp.Diff(r, again, resultCmp); diff != "" {
		t.Fatalf("a decoded result, encoded again, decodes otherwise (-first +again):\n%s", diff)
	}
}

// FuzzDecodeResult holds DecodeResult to an error or a result that
// round-trips, never a panic, for any input: whole encodings, mostly
// refused by gzip's checksum once changed.
func FuzzDecodeResult(f *testing.F) {
	for _, s := range wireSeeds(f) {
		f.Add(s)
		f.Add(s[:len(s)/2])
	}
	f.Add([]byte(wireMagic + "\x01"))
	f.Add([]byte("not an encoding"))
	f.Fuzz(checkDecoded)
}

// FuzzDecodeResultBody is FuzzDecodeResult past gzip: the fuzzer changes
// an encoding's body, which is then compressed as EncodeResult would, so
// that every field's decoding is reached.
func FuzzDecodeResultBody(f *testing.F) {
	for _, s := range wireSeeds(f) {
		z, err := gzip.NewReader(bytes.NewReader(s[len(wireMagic)+1:]))
		if err != nil {
			f.Fatal(err)
		}
		body, err := io.ReadAll(z)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(body)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var buf bytes.Buffer
		buf.WriteString(wireMagic + "\x01")
		z := gzip.NewWriter(&buf)
		z.Write(body)
		z.Close()
		checkDecoded(t, buf.Bytes())
	})
}
