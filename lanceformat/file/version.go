package file

import (
	"errors"

	"github.com/flightd/flightd/lanceformat/encoding"
)

// ErrCorruptFile classifies files whose bytes contradict the format: bad magic, offsets
// past the end, encodings that do not fit their buffers. Errors wrap it and name the file
// and, where known, the column or field.
var ErrCorruptFile = errors.New("corrupt lance file")

// Version is a Lance file format version.
type Version int

// The file format versions this package reads.
const (
	V2_0 Version = iota + 1
	V2_1
	V2_2
)

// String renders the version as Lance writes it in manifests ("2.0", "2.1", "2.2").
func (v Version) String() string {
	switch v {
	case V2_0:
		return "2.0"
	case V2_1:
		return "2.1"
	case V2_2:
		return "2.2"
	}
	return "unknown"
}

// ErrNotSupported classifies valid files (or parts of them) this package cannot read yet.
// Error messages contain "not supported yet: <what>".
var ErrNotSupported = encoding.ErrNotSupported
