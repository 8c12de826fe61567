package index

import (
	"errors"
	"fmt"
)

// Sentinel errors. Errors returned by this package wrap one of them with the index and file.
var (
	// ErrCorruptIndex means an index file or index metadata could not be decoded.
	ErrCorruptIndex = errors.New("corrupt index")
	// ErrNotSupported means the index (or the file format it was written in) is not
	// supported yet.
	ErrNotSupported = errors.New("not supported yet")
	// ErrNoData means an index was to be built over no fragments (an empty table, or no
	// fragment left to cover).
	ErrNoData = errors.New("no data to index")
	// ErrNoIndex means a version has no index of the given name.
	ErrNoIndex = errors.New("no such index")
)

// notSupported returns an error wrapping ErrNotSupported that names what is missing.
func notSupported(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrNotSupported, fmt.Sprintf(format, args...))
}

// corrupt returns an error wrapping ErrCorruptIndex.
func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorruptIndex, fmt.Sprintf(format, args...))
}
