// Package lanceio is the storage interface of the Lance format code: ranged reads, ordered
// listing, writes and the atomic create-if-absent that commits rely on.
//
// It is a leaf. Implementations live elsewhere (internal/blobstore adapts gocloud.dev/blob);
// lanceformat code only ever sees ObjectStore.
package lanceio

import (
	"context"
	"errors"
	"time"
)

// Sentinel errors every implementation maps its own errors to, so callers can use errors.Is.
var (
	// ErrNotFound means the object does not exist.
	ErrNotFound = errors.New("object not found")
	// ErrAlreadyExists means PutIfAbsent found the object already there.
	ErrAlreadyExists = errors.New("object already exists")
)

// ObjectInfo describes one listed object.
type ObjectInfo struct {
	Path    string // full path relative to the store's root, '/'-separated
	Size    int64
	ModTime time.Time
}

// ObjectStore is a flat namespace of immutable objects addressed by '/'-separated paths
// relative to the store's root. It is safe for concurrent use.
type ObjectStore interface {
	// ReadRange reads n bytes at offset off. Reading past the end is an error.
	ReadRange(ctx context.Context, path string, off, n int64) ([]byte, error)
	// Size returns the object's size in bytes.
	Size(ctx context.Context, path string) (int64, error)
	// List returns the objects whose path starts with prefix, sorted by path. A prefix that
	// ends in '/' lists a "directory" recursively.
	List(ctx context.Context, prefix string) ([]ObjectInfo, error)
	// Put writes an object, replacing any existing one. Readers never see a partial object.
	Put(ctx context.Context, path string, data []byte) error
	// PutIfAbsent writes an object only if none exists at path, atomically across processes;
	// otherwise it returns an error wrapping ErrAlreadyExists.
	PutIfAbsent(ctx context.Context, path string, data []byte) error
	// Delete removes an object. Deleting a missing object returns an error wrapping ErrNotFound.
	Delete(ctx context.Context, path string) error
}
