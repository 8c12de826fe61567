package table

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// newUUID returns a random (version 4) UUID in hyphenated lowercase form and its bytes.
func newUUID() (string, [16]byte) {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (it panics on a broken OS source)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return fmt.Sprintf("%s-%s-%s-%s-%s", h[0:8], h[8:12], h[12:16], h[16:20], h[20:]), b
}

// newDataFileName returns a data file name the way the Rust writer makes them: the first
// three bytes of a random UUID as 24 binary digits, then the other 13 bytes in hex, then
// ".lance".
func newDataFileName() string {
	_, b := newUUID()
	var sb strings.Builder
	for _, c := range b[:3] {
		fmt.Fprintf(&sb, "%08b", c)
	}
	sb.WriteString(hex.EncodeToString(b[3:]))
	sb.WriteString(".lance")
	return sb.String()
}

// randomU64 returns a random non-zero u64 (deletion file ids).
func randomU64() uint64 {
	var b [8]byte
	for {
		_, _ = rand.Read(b[:])
		if v := binary.LittleEndian.Uint64(b[:]); v != 0 {
			return v
		}
	}
}

// isNotFound reports whether err means "no such version".
func isNotFound(err error) bool { return errors.Is(err, ErrVersionNotFound) }
