package table

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/flightd/flightd/lanceformat/internal/lancepb"
)

// DeletionVector is the set of deleted row offsets of one fragment, sorted ascending.
// A nil *DeletionVector means nothing is deleted.
type DeletionVector struct {
	offsets []uint32
}

// NewDeletionVector builds a vector from offsets in any order (duplicates are removed).
func NewDeletionVector(offsets []uint32) *DeletionVector {
	return &DeletionVector{offsets: sortedUnique(append([]uint32(nil), offsets...))}
}

// Len is the number of deleted rows.
func (d *DeletionVector) Len() int {
	if d == nil {
		return 0
	}
	return len(d.offsets)
}

// Offsets returns the deleted offsets, ascending. The caller must not modify the slice.
func (d *DeletionVector) Offsets() []uint32 {
	if d == nil {
		return nil
	}
	return d.offsets
}

// Contains reports whether row offset off is deleted.
func (d *DeletionVector) Contains(off uint64) bool {
	if d == nil || off > math.MaxUint32 {
		return false
	}
	i := sort.Search(len(d.offsets), func(i int) bool { return uint64(d.offsets[i]) >= off })
	return i < len(d.offsets) && uint64(d.offsets[i]) == off
}

// CountIn returns how many deleted offsets lie in [start, end).
func (d *DeletionVector) CountIn(start, end uint64) int {
	if d == nil || start >= end {
		return 0
	}
	lo := sort.Search(len(d.offsets), func(i int) bool { return uint64(d.offsets[i]) >= start })
	hi := sort.Search(len(d.offsets), func(i int) bool { return uint64(d.offsets[i]) >= end })
	return hi - lo
}

// DeletionFilePath is the path, relative to the dataset root, of a fragment's deletion file.
func DeletionFilePath(fragmentID uint64, df *lancepb.DeletionFile) string {
	ext := "arrow"
	if df.GetFileType() == lancepb.DeletionFile_BITMAP {
		ext = "bin"
	}
	return fmt.Sprintf("_deletions/%d-%d-%d.%s", fragmentID, df.GetReadVersion(), df.GetId(), ext)
}

// ReadDeletionVector reads the deletion vector of fragment frag, or returns nil if it has
// none. Offsets must be below the fragment's physical_rows when that is recorded. It cannot
// resolve a deletion file under a base path (one with a base_id); ReadFragmentDeletions can.
func (d *Dataset) ReadDeletionVector(ctx context.Context, frag *lancepb.DataFragment) (*DeletionVector, error) {
	df := frag.GetDeletionFile()
	if df == nil {
		return nil, nil
	}
	if df.BaseId != nil {
		return nil, fmt.Errorf("%s: fragment %d: deletion file under base path %d: %w (use ReadFragmentDeletions)",
			d.describe(), frag.GetId(), df.GetBaseId(), ErrUnsupportedFeature)
	}
	return d.readDeletionVector(ctx, FileLocation{Store: d.store, Path: d.Path(DeletionFilePath(frag.GetId(), df))}, frag)
}

// ReadFragmentDeletions reads the deletion vector of fragment frag of manifest m, or returns
// nil if it has none, resolving a deletion file under a base path through m's base paths.
func (d *Dataset) ReadFragmentDeletions(ctx context.Context, m *Manifest, frag *lancepb.DataFragment) (*DeletionVector, error) {
	if frag.GetDeletionFile() == nil {
		return nil, nil
	}
	loc, err := d.DeletionFileLocation(ctx, m, frag)
	if err != nil {
		return nil, err
	}
	return d.readDeletionVector(ctx, loc, frag)
}

func (d *Dataset) readDeletionVector(ctx context.Context, loc FileLocation, frag *lancepb.DataFragment) (*DeletionVector, error) {
	df := frag.GetDeletionFile()
	p := loc.String()
	size, err := loc.Store.Size(ctx, loc.Path)
	if err != nil {
		return nil, fmt.Errorf("read deletion file %s: %w", p, err)
	}
	data, err := loc.Store.ReadRange(ctx, loc.Path, 0, size)
	if err != nil {
		return nil, fmt.Errorf("read deletion file %s: %w", p, err)
	}
	limit := uint64(math.MaxUint32) + 1
	if n := frag.GetPhysicalRows(); n > 0 {
		limit = n
	}
	var offs []uint32
	if df.GetFileType() == lancepb.DeletionFile_BITMAP {
		offs, err = DecodeRoaring(data, limit)
	} else {
		offs, err = DecodeDeletionArrow(data, limit)
	}
	if err != nil {
		return nil, fmt.Errorf("deletion file %s: %w: %w", p, ErrCorruptFile, err)
	}
	if n := df.GetNumDeletedRows(); n != 0 && n != uint64(len(offs)) {
		return nil, fmt.Errorf("deletion file %s: %w: holds %d offsets, manifest says %d",
			p, ErrCorruptFile, len(offs), n)
	}
	return &DeletionVector{offsets: offs}, nil
}

// DecodeDeletionArrow decodes an ARROW_ARRAY deletion file: an Arrow IPC file with one
// non-null uint32 (or int32) column of row offsets, in any order, possibly with LZ4 or zstd
// compressed buffers. The result is sorted and distinct; every value must be below limit.
func DecodeDeletionArrow(data []byte, limit uint64) ([]uint32, error) {
	offs, err := decodeIPCDeletions(data, limit)
	if err != nil {
		return nil, fmt.Errorf("arrow ipc deletion file: %w", err)
	}
	return offs, nil
}
