package legacy

import (
	"context"
	"encoding/binary"
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/flightd/flightd/lanceformat/internal/lancepb"
	"github.com/flightd/flightd/lanceformat/lanceio"
	"github.com/flightd/flightd/lanceformat/schema"
)

// OpenSelfDescribed opens a v1 file that carries its own schema in the manifest embedded
// before its metadata block (Metadata.manifest_position), as the index files Lance wrote
// in the v1 format do (page_lookup.lance, page_data.lance of BTrees up to Lance 0.20). The
// page table spans the embedded schema's field ids; Schema().Metadata is the manifest's
// schema metadata.
func OpenSelfDescribed(ctx context.Context, store lanceio.ObjectStore, path string) (*Reader, error) {
	size, err := store.Size(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("open legacy lance file %s: %w", path, err)
	}
	r := &Reader{store: store, path: path, size: uint64(size)}
	if err := r.openSelfDescribed(ctx); err != nil {
		return nil, fmt.Errorf("open legacy lance file %s: %w", path, err)
	}
	return r, nil
}

func (r *Reader) openSelfDescribed(ctx context.Context) error {
	metaPos, err := r.readMetadata(ctx)
	if err != nil {
		return err
	}
	if r.meta.ManifestPosition == 0 {
		return fmt.Errorf("%w: no embedded schema (no manifest position)", ErrCorruptFile)
	}
	b, err := r.readManifestBlock(ctx, metaPos)
	if err != nil {
		return err
	}
	m, err := parseManifest(b)
	if err != nil {
		return err
	}
	if r.schema, err = schema.FromProto(m.GetFields()); err != nil {
		return fmt.Errorf("%w: embedded schema: %w", ErrCorruptFile, err)
	}
	if md := m.GetSchemaMetadata(); len(md) > 0 {
		r.schema.Metadata = make(map[string]string, len(md))
		for k, v := range md {
			r.schema.Metadata[k] = string(v)
		}
	}
	ids := make([]int32, 0, len(m.GetFields()))
	for _, f := range m.GetFields() {
		ids = append(ids, f.GetId())
	}
	return r.finishOpen(ctx, ids, metaPos)
}

// parseManifest decodes the u32-length-prefixed lance.table.Manifest embedded in a v1 file.
func parseManifest(b []byte) (*lancepb.Manifest, error) {
	if len(b) < 4 {
		return nil, fmt.Errorf("%w: file manifest block of %d bytes", ErrCorruptFile, len(b))
	}
	n := binary.LittleEndian.Uint32(b)
	if uint64(n) > uint64(len(b)-4) {
		return nil, fmt.Errorf("%w: file manifest of %d bytes exceeds its block of %d", ErrCorruptFile, n, len(b)-4)
	}
	var m lancepb.Manifest
	if err := proto.Unmarshal(b[4:4+n], &m); err != nil {
		return nil, fmt.Errorf("%w: file manifest: %w", ErrCorruptFile, err)
	}
	return &m, nil
}

// NumBatches is the number of record batches in the file.
func (r *Reader) NumBatches() int { return r.meta.NumBatches() }

// BatchRows returns the rows [start, end) of batch i. Index files in the v1 format keep
// one index page per batch.
func (r *Reader) BatchRows(i int) (start, end uint64, err error) {
	if i < 0 || i >= r.meta.NumBatches() {
		return 0, 0, fmt.Errorf("%s: batch %d of %d: %w", r.path, i, r.meta.NumBatches(), ErrCorruptFile)
	}
	return uint64(r.meta.BatchOffsets[i]), uint64(r.meta.BatchOffsets[i+1]), nil
}
