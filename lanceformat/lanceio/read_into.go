package lanceio

import (
	"context"
	"fmt"
	"unsafe"
)

// RangeIntoReader is the optional capability of stores that can read a range into a
// buffer the caller owns, so a reader can recycle its page buffers instead of receiving a
// new, zeroed one per read. Callers find it by type assertion; ReadInto does that for them.
type RangeIntoReader interface {
	// ReadRangeInto reads len(buf) bytes at offset off of the object into buf. Reading past
	// the end is an error; buf's contents are then undefined.
	ReadRangeInto(ctx context.Context, path string, off int64, buf []byte) error
}

// ReadInto reads len(buf) bytes at off of path: into buf when s implements
// RangeIntoReader, otherwise through ReadRange, whose new slice it returns instead of
// copying it. Callers must use the returned slice, which is buf or has buf's length.
func ReadInto(ctx context.Context, s ObjectStore, path string, off int64, buf []byte) ([]byte, error) {
	if r, ok := s.(RangeIntoReader); ok {
		if err := r.ReadRangeInto(ctx, path, off, buf); err != nil {
			return nil, err
		}
		return buf, nil
	}
	b, err := s.ReadRange(ctx, path, off, int64(len(buf)))
	if err != nil {
		return nil, err
	}
	if len(b) != len(buf) {
		return nil, fmt.Errorf("read %s [%d,+%d): got %d bytes", path, off, len(buf), len(b))
	}
	return b, nil
}

// readIntoBuf is ReadInto for stores that must fill buf itself: it copies when s can only
// return a new slice.
func readIntoBuf(ctx context.Context, s ObjectStore, path string, off int64, buf []byte) error {
	b, err := ReadInto(ctx, s, path, off, buf)
	if err != nil {
		return err
	}
	if len(b) > 0 && unsafe.SliceData(b) != unsafe.SliceData(buf) {
		copy(buf, b)
	}
	return nil
}
