package blobstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"sort"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"github.com/flightd/flightd/lanceformat/lanceio"
)

// BucketStore adapts a gocloud.dev/blob Bucket to lanceio.ObjectStore. PutIfAbsent uses
// the IfNotExist write option, which is atomic on S3, GCS, Azure and memblob.
type BucketStore struct {
	b      *blob.Bucket
	scheme string     // the URL scheme Open opened it with ("" if made by NewBucketStore)
	conn   url.Values // that URL's query parameters other than prefix (connection settings)
}

// NewBucketStore wraps b. The store owns b; Close closes it.
func NewBucketStore(b *blob.Bucket) *BucketStore { return &BucketStore{b: b} }

// Close closes the underlying bucket.
func (s *BucketStore) Close() error { return s.b.Close() }

func mapBlobError(op, p string, err error) error {
	switch gcerrors.Code(err) {
	case gcerrors.NotFound:
		return fmt.Errorf("%s %s: %w (%w)", op, p, lanceio.ErrNotFound, err)
	case gcerrors.FailedPrecondition, gcerrors.AlreadyExists:
		return fmt.Errorf("%s %s: %w (%w)", op, p, lanceio.ErrAlreadyExists, err)
	default:
		return fmt.Errorf("%s %s: %w", op, p, err)
	}
}

// ReadRange implements lanceio.ObjectStore.
func (s *BucketStore) ReadRange(ctx context.Context, p string, off, n int64) ([]byte, error) {
	if off < 0 || n < 0 {
		return nil, fmt.Errorf("read %s: invalid range offset %d length %d", p, off, n)
	}
	buf := make([]byte, n)
	if err := s.ReadRangeInto(ctx, p, off, buf); err != nil {
		return nil, err
	}
	return buf, nil
}

// ReadRangeInto implements lanceio.RangeIntoReader: it reads len(buf) bytes at off into
// buf, so callers can reuse their buffers.
func (s *BucketStore) ReadRangeInto(ctx context.Context, p string, off int64, buf []byte) error {
	if off < 0 {
		return fmt.Errorf("read %s: invalid range offset %d length %d", p, off, len(buf))
	}
	n := int64(len(buf))
	if n == 0 {
		_, err := s.Size(ctx, p)
		return err
	}
	r, err := s.b.NewRangeReader(ctx, p, off, n, nil)
	if err != nil {
		return mapBlobError("read", p, err)
	}
	defer func() { _ = r.Close() }() // read side: a close error cannot lose data
	if _, err := io.ReadFull(r, buf); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return fmt.Errorf("read %s [%d,+%d): past end of object: %w", p, off, n, io.ErrUnexpectedEOF)
		}
		return mapBlobError("read", p, err)
	}
	return nil
}

// Size implements lanceio.ObjectStore.
func (s *BucketStore) Size(ctx context.Context, p string) (int64, error) {
	a, err := s.b.Attributes(ctx, p)
	if err != nil {
		return 0, mapBlobError("size", p, err)
	}
	return a.Size, nil
}

// List implements lanceio.ObjectStore.
func (s *BucketStore) List(ctx context.Context, prefix string) ([]lanceio.ObjectInfo, error) {
	it := s.b.List(&blob.ListOptions{Prefix: prefix})
	var out []lanceio.ObjectInfo
	for {
		o, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, mapBlobError("list", prefix, err)
		}
		if o.IsDir {
			continue
		}
		out = append(out, lanceio.ObjectInfo{Path: o.Key, Size: o.Size, ModTime: o.ModTime})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// Put implements lanceio.ObjectStore.
func (s *BucketStore) Put(ctx context.Context, p string, data []byte) error {
	if err := s.b.WriteAll(ctx, p, data, nil); err != nil {
		return mapBlobError("put", p, err)
	}
	return nil
}

// PutIfAbsent implements lanceio.ObjectStore.
func (s *BucketStore) PutIfAbsent(ctx context.Context, p string, data []byte) error {
	if err := s.b.WriteAll(ctx, p, data, &blob.WriterOptions{IfNotExist: true}); err != nil {
		return mapBlobError("put if absent", p, err)
	}
	return nil
}

// Delete implements lanceio.ObjectStore.
func (s *BucketStore) Delete(ctx context.Context, p string) error {
	if err := s.b.Delete(ctx, p); err != nil {
		return mapBlobError("delete", p, err)
	}
	return nil
}

var (
	_ lanceio.ObjectStore     = (*BucketStore)(nil)
	_ lanceio.RangeIntoReader = (*BucketStore)(nil)
)
