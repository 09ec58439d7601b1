package record

import (
	"fmt"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// A Kept is a finished histogram kept in HdrHistogram's V2 compressed
// encoding (zlib-compressed and base64-encoded, the bytes a results database
// stores), and decoded when it is read. A run keeps two per interval for its
// whole length, and the encoding is some five times smaller than the
// histogram unpacked. The zero Kept is an empty histogram with latlab's
// range and precision.
type Kept struct {
	enc []byte
}

// Keep returns h kept in its V2 compressed encoding.
func Keep(h interface{ EncodeV2() ([]byte, error) }) (Kept, error) {
	b, err := h.EncodeV2()
	if err != nil {
		return Kept{}, fmt.Errorf("encoding histogram: %w", err)
	}
	return Kept{enc: b}, nil
}

// KeptEncoding returns a Kept holding enc, a histogram's V2 compressed
// encoding as stored. It does not decode enc: a malformed one is found
// when the Kept is read, as is an empty one.
func KeptEncoding(enc []byte) Kept {
	if enc == nil {
		enc = []byte{}
	}
	return Kept{enc: enc}
}

// Encoded returns k's V2 compressed encoding. The caller must not modify
// it.
func (k Kept) Encoded() ([]byte, error) {
	if k.enc == nil {
		return NewPacked().EncodeV2()
	}
	return k.enc, nil
}

// Histogram returns k decoded into a new histogram of the caller's own; k
// keeps only its encoding.
func (k Kept) Histogram() (*hdr.PackedHistogram, error) {
	if k.enc == nil {
		return NewPacked(), nil
	}
	h, err := hdr.DecodePacked(k.enc)
	if err != nil {
		return nil, fmt.Errorf("decoding histogram: %w", err)
	}
	return h, nil
}

// Size returns the bytes k's encoding takes.
func (k Kept) Size() int { return len(k.enc) }
