package table

import (
	"bytes"
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/lanceformat/internal/lancepb"
)

// MaxArrowDeletions is the largest deletion set written as an Arrow IPC file; larger sets
// are written as Roaring bitmaps (as Lance does).
const MaxArrowDeletions = 5000

var deletionSchema = arrow.NewSchema([]arrow.Field{{Name: "row_id", Type: arrow.PrimitiveTypes.Uint32}}, nil)

// EncodeDeletionArrow encodes row offsets as an ARROW_ARRAY deletion file: an Arrow IPC
// file with one non-null uint32 column "row_id" in one batch, zstd-compressed buffers.
func EncodeDeletionArrow(offsets []uint32) ([]byte, error) {
	mem := memory.NewGoAllocator()
	bld := array.NewUint32Builder(mem)
	defer bld.Release()
	bld.AppendValues(offsets, nil)
	col := bld.NewArray()
	defer col.Release()
	rec := array.NewRecordBatch(deletionSchema, []arrow.Array{col}, int64(len(offsets)))
	defer rec.Release()
	var buf bytes.Buffer
	w, err := ipc.NewFileWriter(&buf, ipc.WithSchema(deletionSchema), ipc.WithAllocator(mem), ipc.WithZstd())
	if err != nil {
		return nil, fmt.Errorf("encode deletion file: %w", err)
	}
	if err := w.Write(rec); err != nil {
		return nil, fmt.Errorf("encode deletion file: %w", err)
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("encode deletion file: %w", err)
	}
	return buf.Bytes(), nil
}

// writeDeletionFile writes the deletion file of fragment fragID holding offsets (sorted,
// distinct) for a commit built on version readVersion, and returns its manifest entry.
func (d *Dataset) writeDeletionFile(ctx context.Context, fragID, readVersion uint64, offsets []uint32) (*lancepb.DeletionFile, error) {
	df := &lancepb.DeletionFile{ReadVersion: readVersion, Id: randomU64(), NumDeletedRows: uint64(len(offsets))}
	var data []byte
	if len(offsets) <= MaxArrowDeletions {
		var err error
		if data, err = EncodeDeletionArrow(offsets); err != nil {
			return nil, fmt.Errorf("%s: fragment %d: %w", d.describe(), fragID, err)
		}
	} else {
		df.FileType = lancepb.DeletionFile_BITMAP
		data = EncodeRoaring(offsets)
	}
	p := d.Path(DeletionFilePath(fragID, df))
	if err := d.store.Put(ctx, p, data); err != nil {
		return nil, fmt.Errorf("write deletion file %s: %w", p, err)
	}
	return df, nil
}
