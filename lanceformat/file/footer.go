package file

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/flightd/flightd/lanceformat/encoding"
)

// Footer layout constants (§5.1).
const (
	footerSize  = 40
	footerMagic = "LANC"
	tableEntry  = 16 // u64 position + u64 size
)

// Footer is the fixed 40-byte tail of a Lance v2 file.
type Footer struct {
	ColumnMetaStart   uint64 // A: first column metadata byte
	ColumnMetaOffsets uint64 // B: the CMO table
	GlobalBufOffsets  uint64 // C: the GBO table
	NumGlobalBuffers  uint32
	NumColumns        uint32
	Major, Minor      uint16
}

// ErrLegacyFile classifies legacy (v1, pre-2.0) data files, which package
// lanceformat/file/legacy reads. Errors wrapping it also wrap ErrNotSupported.
var ErrLegacyFile = errors.New("legacy v1 lance file")

// Extent is a (position, size) pair from the CMO or GBO table.
type Extent struct {
	Pos, Size uint64
}

// End returns Pos + Size.
func (e Extent) End() uint64 { return e.Pos + e.Size }

// ParseFooter decodes and validates the last 40 bytes of a file of fileSize bytes.
func ParseFooter(b []byte, fileSize uint64) (Footer, error) {
	if len(b) < footerSize {
		return Footer{}, fmt.Errorf("%w: footer needs %d bytes, have %d", ErrCorruptFile, footerSize, len(b))
	}
	b = b[len(b)-footerSize:]
	if string(b[36:40]) != footerMagic {
		return Footer{}, fmt.Errorf("%w: bad magic %q", ErrCorruptFile, b[36:40])
	}
	f := Footer{
		ColumnMetaStart:   binary.LittleEndian.Uint64(b[0:]),
		ColumnMetaOffsets: binary.LittleEndian.Uint64(b[8:]),
		GlobalBufOffsets:  binary.LittleEndian.Uint64(b[16:]),
		NumGlobalBuffers:  binary.LittleEndian.Uint32(b[24:]),
		NumColumns:        binary.LittleEndian.Uint32(b[28:]),
		Major:             binary.LittleEndian.Uint16(b[32:]),
		Minor:             binary.LittleEndian.Uint16(b[34:]),
	}
	// The version comes first: legacy v1 footers are 16 bytes, so their bytes misread as
	// v2 offsets would report a readable (if unsupported) file as corrupt.
	if _, err := f.Version(); err != nil {
		return Footer{}, err
	}
	tail := fileSize - footerSize
	switch {
	case fileSize < footerSize:
		return Footer{}, fmt.Errorf("%w: file of %d bytes is shorter than the footer", ErrCorruptFile, fileSize)
	case f.ColumnMetaStart > f.ColumnMetaOffsets || f.ColumnMetaOffsets > f.GlobalBufOffsets ||
		f.GlobalBufOffsets > tail:
		return Footer{}, fmt.Errorf("%w: footer offsets %d, %d, %d out of order or past %d",
			ErrCorruptFile, f.ColumnMetaStart, f.ColumnMetaOffsets, f.GlobalBufOffsets, tail)
	case uint64(f.NumColumns)*tableEntry != f.GlobalBufOffsets-f.ColumnMetaOffsets:
		return Footer{}, fmt.Errorf("%w: %d columns do not fit a CMO table of %d bytes",
			ErrCorruptFile, f.NumColumns, f.GlobalBufOffsets-f.ColumnMetaOffsets)
	case uint64(f.NumGlobalBuffers)*tableEntry != tail-f.GlobalBufOffsets:
		return Footer{}, fmt.Errorf("%w: %d global buffers do not fit a GBO table of %d bytes",
			ErrCorruptFile, f.NumGlobalBuffers, tail-f.GlobalBufOffsets)
	case f.NumGlobalBuffers == 0:
		return Footer{}, fmt.Errorf("%w: no global buffers (the schema is global buffer 0)", ErrCorruptFile)
	}
	return f, nil
}

// Version maps the footer's (major, minor) to a format version.
func (f Footer) Version() (Version, error) {
	switch {
	case f.Major == 0 && f.Minor == 3, f.Major == 2 && f.Minor == 0:
		return V2_0, nil
	case f.Major == 2 && f.Minor == 1:
		return V2_1, nil
	case f.Major == 2 && f.Minor == 2:
		return V2_2, nil
	case f.Major == 0 && f.Minor <= 2:
		return 0, fmt.Errorf("%w: %w", ErrLegacyFile,
			encoding.NotSupported("legacy (v1) Lance files in this reader (version %d.%d; use package legacy)", f.Major, f.Minor))
	}
	return 0, encoding.NotSupported("file format version %d.%d", f.Major, f.Minor)
}

// ParseTable decodes n (position, size) entries from b and checks each lies in [0, limit).
func ParseTable(b []byte, n uint32, limit uint64, what string) ([]Extent, error) {
	if uint64(len(b)) < uint64(n)*tableEntry {
		return nil, fmt.Errorf("%w: %s table needs %d bytes, have %d", ErrCorruptFile, what,
			uint64(n)*tableEntry, len(b))
	}
	out := make([]Extent, n)
	for i := range out {
		e := Extent{Pos: binary.LittleEndian.Uint64(b[i*tableEntry:]),
			Size: binary.LittleEndian.Uint64(b[i*tableEntry+8:])}
		if e.Pos > limit || e.Size > limit-e.Pos {
			return nil, fmt.Errorf("%w: %s %d at [%d, +%d) is past %d", ErrCorruptFile, what, i,
				e.Pos, e.Size, limit)
		}
		out[i] = e
	}
	return out, nil
}
