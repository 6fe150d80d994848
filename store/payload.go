package store

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/klauspost/compress/s2"
)

// Webhook payloads are stored compressed. GitHub's payloads repeat the
// repository's API URLs dozens of times, so S2 (a Snappy-compatible
// block format) shrinks a typical 18–25 kB workflow_run payload about six
// times at over 2 GB/s. On SQLite that is the difference between seven
// overflow pages per delivery, each written to the write-ahead log and again
// to the database file by the checkpoint, and one; on PostgreSQL the row
// stays inline instead of going through TOAST.
//
// Stored form: payloadMagic followed by an S2 block, or the payload's own
// bytes when compressing would not shrink it. Rows written before payloads
// were compressed hold the JSON itself, which never starts with a NUL byte,
// so both read back. A payload that itself starts with payloadMagic is
// always compressed, so a stored value that starts with it is never raw.
const payloadMagic = "\x00S2"

// maxPayload bounds the size a stored payload may claim to decode to: more
// than the webhook accepts (25 MB and a little), so a corrupt row cannot
// make a reader allocate without limit.
const maxPayload = 32 << 20

// PackPayload returns a payload in its stored form. The store packs
// Delivery.Payload itself unless Delivery.Packed holds it already.
func PackPayload(p []byte) []byte {
	if len(p) < 64 && !bytes.HasPrefix(p, []byte(payloadMagic)) {
		return p
	}
	bound := s2.MaxEncodedLen(len(p))
	if bound < 0 { // over 4 GB: more than any store would be given
		return p
	}
	out := make([]byte, len(payloadMagic)+bound)
	copy(out, payloadMagic)
	out = out[:len(payloadMagic)+len(s2.Encode(out[len(payloadMagic):], p))]
	if len(out) >= len(p) && !bytes.HasPrefix(p, []byte(payloadMagic)) {
		return p
	}
	return out
}

// UnpackPayload returns the payload a stored value holds.
func UnpackPayload(stored []byte) ([]byte, error) {
	block, ok := bytes.CutPrefix(stored, []byte(payloadMagic))
	if !ok {
		return stored, nil
	}
	n, err := s2.DecodedLen(block)
	if err != nil {
		return nil, fmt.Errorf("stored payload: %w", err)
	}
	if n > maxPayload {
		return nil, errors.New("stored payload: claims more than 32 MB")
	}
	p, err := s2.Decode(make([]byte, n), block)
	if err != nil {
		return nil, fmt.Errorf("stored payload: %w", err)
	}
	return p, nil
}
