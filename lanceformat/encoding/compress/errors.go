package compress

import (
	"errors"
	"fmt"
)

// ErrCorrupt is wrapped by every error a decoder returns for malformed input:
// a buffer that is too short, a width that is out of range, offsets that run
// backwards or past the end, and so on. Use errors.Is(err, ErrCorrupt).
var ErrCorrupt = errors.New("corrupt compressed data")

// ErrUnsupported is wrapped by errors for parameters that are well-formed but
// not supported by this package (for example an unknown compression scheme).
// Its message contains "not supported yet".
var ErrUnsupported = errors.New("not supported yet")

// corruptf returns an error wrapping ErrCorrupt with a formatted context.
func corruptf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}

// checkWordBits validates an uncompressed word width (8, 16, 32 or 64 bits).
func checkWordBits(what string, t int) error {
	switch t {
	case 8, 16, 32, 64:
		return nil
	}
	return corruptf("%s: uncompressed width %d bits, want 8, 16, 32 or 64", what, t)
}

// checkCount validates a caller-supplied value count.
func checkCount(what string, n int) error {
	if n < 0 {
		return corruptf("%s: negative value count %d", what, n)
	}
	return nil
}
