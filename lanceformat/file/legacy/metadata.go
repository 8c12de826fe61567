package legacy

import (
	"encoding/binary"
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/flightd/flightd/lanceformat/internal/lancepb"
)

// Metadata is the validated lance.file.Metadata message of a v1 file (proto/lance/legacy.proto:
// fields 1-3; the statistics in field 5 are not needed to read rows).
type Metadata struct {
	ManifestPosition  uint64
	BatchOffsets      []int32
	PageTablePosition uint64
}

// NumBatches is the number of record batches (pages per field).
func (m Metadata) NumBatches() int { return max(len(m.BatchOffsets)-1, 0) }

// NumRows is the last batch offset.
func (m Metadata) NumRows() uint64 {
	if len(m.BatchOffsets) == 0 {
		return 0
	}
	return uint64(m.BatchOffsets[len(m.BatchOffsets)-1])
}

// batchOf returns the batch holding row (which must be < NumRows).
func (m Metadata) batchOf(row uint64) int {
	lo, hi := 0, m.NumBatches()
	for lo+1 < hi {
		mid := (lo + hi) / 2
		if uint64(m.BatchOffsets[mid]) <= row {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// ParseMetadata decodes the u32-length-prefixed Metadata block at the start of b and
// checks that the batch offsets start at 0 and never decrease.
func ParseMetadata(b []byte) (Metadata, error) {
	if len(b) < 4 {
		return Metadata{}, fmt.Errorf("%w: metadata block of %d bytes", ErrCorruptFile, len(b))
	}
	n := binary.LittleEndian.Uint32(b)
	if uint64(n) > uint64(len(b)-4) {
		return Metadata{}, fmt.Errorf("%w: metadata of %d bytes exceeds the %d bytes before the footer",
			ErrCorruptFile, n, len(b)-4)
	}
	var pb lancepb.Metadata
	if err := proto.Unmarshal(b[4:4+n], &pb); err != nil {
		return Metadata{}, fmt.Errorf("%w: metadata: %w", ErrCorruptFile, err)
	}
	m := Metadata{ManifestPosition: pb.GetManifestPosition(), BatchOffsets: pb.GetBatchOffsets(),
		PageTablePosition: pb.GetPageTablePosition()}
	for i, o := range m.BatchOffsets {
		if (i == 0 && o != 0) || o < 0 || (i > 0 && o < m.BatchOffsets[i-1]) {
			return Metadata{}, fmt.Errorf("%w: batch offsets %v do not start at 0 and ascend", ErrCorruptFile, m.BatchOffsets)
		}
	}
	return m, nil
}

// ParseManifestDictionaries decodes the u32-length-prefixed lance.table.Manifest embedded
// in a v1 file and returns the dictionary locations of its fields by field id.
func ParseManifestDictionaries(b []byte) (map[int32]Dictionary, error) {
	m, err := parseManifest(b)
	if err != nil {
		return nil, err
	}
	out := map[int32]Dictionary{}
	for _, f := range m.GetFields() {
		if d := f.GetDictionary(); d != nil && (d.GetOffset() != 0 || d.GetLength() != 0) {
			out[f.GetId()] = Dictionary{Offset: d.GetOffset(), Length: d.GetLength()}
		}
	}
	return out, nil
}
