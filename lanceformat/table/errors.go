package table

import (
	"errors"
	"fmt"
)

// Sentinel errors. Errors returned by this package wrap them with the path and version.
var (
	// ErrCorruptManifest means a manifest file could not be decoded.
	ErrCorruptManifest = errors.New("corrupt manifest")
	// ErrCorruptFile means a non-manifest table file (deletion file, tag, row ids) is invalid.
	ErrCorruptFile = errors.New("corrupt file")
	// ErrVersionNotFound means the dataset has no such version (or none at all).
	ErrVersionNotFound = errors.New("version not found")
	// ErrTagNotFound means the dataset has no such tag.
	ErrTagNotFound = errors.New("tag not found")
	// ErrUnsupportedFeature means the manifest needs a reader feature this package lacks.
	ErrUnsupportedFeature = errors.New("unsupported feature")
)

// UnsupportedFeatureError says which reader feature flags of a manifest are not supported.
// It matches ErrUnsupportedFeature with errors.Is.
type UnsupportedFeatureError struct {
	Path    string // manifest path
	Version uint64 // manifest version
	Flags   uint64 // the unsupported bits of reader_feature_flags
}

// Error implements error.
func (e *UnsupportedFeatureError) Error() string {
	return fmt.Sprintf("manifest %s (version %d): reader feature flags %#x: %v",
		e.Path, e.Version, e.Flags, ErrUnsupportedFeature)
}

// Is makes errors.Is(err, ErrUnsupportedFeature) true.
func (e *UnsupportedFeatureError) Is(target error) bool { return target == ErrUnsupportedFeature }
