package table

import (
	"encoding/binary"
	"fmt"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/flightd/flightd/lanceformat/internal/lancepb"
)

// manifest trailer: i64 manifest_pos, i16 major, i16 minor, "LANC".
const (
	trailerLen = 16
	magic      = "LANC"
)

// Manifest is one decoded version of a dataset.
type Manifest struct {
	// Path is the manifest's path in the store.
	Path string
	// Proto is the decoded lance.table.Manifest.
	Proto *lancepb.Manifest
	// Indices are the index segments of the IndexSection (nil if there is none).
	Indices []*lancepb.IndexMetadata
	// Transaction is the inline transaction section, nil if the file has none.
	Transaction *lancepb.Transaction
}

// Version is the manifest's version number.
func (m *Manifest) Version() uint64 { return m.Proto.GetVersion() }

// Timestamp is the commit time; the zero time if the manifest does not record one.
func (m *Manifest) Timestamp() time.Time {
	ts := m.Proto.GetTimestamp()
	if ts == nil {
		return time.Time{}
	}
	return ts.AsTime()
}

// Fields is the flattened (pre-order) schema.
func (m *Manifest) Fields() []*lancepb.Field { return m.Proto.GetFields() }

// Fragments are the dataset's fragments, sorted by id.
func (m *Manifest) Fragments() []*lancepb.DataFragment { return m.Proto.GetFragments() }

// DataFormatVersion is the data storage version ("2.0", "2.1", "2.2", or "0.1" for legacy
// files). When the manifest does not record it, it is inferred from the first data file.
func (m *Manifest) DataFormatVersion() string {
	if v := m.Proto.GetDataFormat().GetVersion(); v != "" {
		return v
	}
	for _, f := range m.Proto.GetFragments() {
		for _, df := range f.GetFiles() {
			major, minor := df.GetFileMajorVersion(), df.GetFileMinorVersion()
			switch {
			case major == 0 && minor < 3:
				return "0.1"
			case major == 0 && minor == 3:
				return "2.0"
			default:
				return fmt.Sprintf("%d.%d", major, minor)
			}
		}
	}
	return ""
}

// DecodeManifest decodes the bytes of a whole manifest file found at path (the path is only
// used in error messages). Errors wrap ErrCorruptManifest.
func DecodeManifest(path string, data []byte) (*Manifest, error) {
	corrupt := func(format string, args ...any) error {
		return fmt.Errorf("manifest %s: %w: %s", path, ErrCorruptManifest, fmt.Sprintf(format, args...))
	}
	size := int64(len(data))
	if size < trailerLen+4 {
		return nil, corrupt("file too short (%d bytes)", size)
	}
	if string(data[size-4:]) != magic {
		return nil, corrupt("missing LANC magic")
	}
	pos := int64(binary.LittleEndian.Uint64(data[size-trailerLen:]))
	msg, err := section(data[:size-trailerLen], pos)
	if err != nil {
		return nil, corrupt("manifest section at %d: %v", pos, err)
	}
	m := &Manifest{Path: path, Proto: &lancepb.Manifest{}}
	if err := proto.Unmarshal(msg, m.Proto); err != nil {
		return nil, corrupt("decode manifest: %v", err)
	}
	v := m.Proto.GetVersion()
	if p := m.Proto.IndexSection; p != nil {
		b, err := section(data[:pos], int64(*p))
		if err != nil {
			return nil, corrupt("version %d: index section at %d: %v", v, *p, err)
		}
		var is lancepb.IndexSection
		if err := proto.Unmarshal(b, &is); err != nil {
			return nil, corrupt("version %d: decode index section: %v", v, err)
		}
		m.Indices = is.GetIndices()
	}
	if p := m.Proto.TransactionSection; p != nil {
		b, err := section(data[:pos], int64(*p))
		if err != nil {
			return nil, corrupt("version %d: transaction section at %d: %v", v, *p, err)
		}
		m.Transaction = &lancepb.Transaction{}
		if err := proto.Unmarshal(b, m.Transaction); err != nil {
			return nil, corrupt("version %d: decode transaction section: %v", v, err)
		}
	}
	return m, nil
}

// section returns the u32-length-prefixed message at pos, which must lie within data.
func section(data []byte, pos int64) ([]byte, error) {
	if pos < 0 || pos > int64(len(data))-4 {
		return nil, fmt.Errorf("position out of range [0,%d)", len(data))
	}
	n := int64(binary.LittleEndian.Uint32(data[pos:]))
	end := pos + 4 + n
	if end > int64(len(data)) {
		return nil, fmt.Errorf("length %d runs past the end (%d)", n, len(data))
	}
	return data[pos+4 : end], nil
}

// EncodeManifest serializes m as a manifest file with no index or transaction section:
// a u32-length-prefixed Manifest followed by the 16-byte trailer (format 0.2).
func EncodeManifest(m *lancepb.Manifest) ([]byte, error) {
	c := proto.Clone(m).(*lancepb.Manifest)
	c.IndexSection, c.TransactionSection = nil, nil
	msg, err := proto.MarshalOptions{Deterministic: true}.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("encode manifest version %d: %w", m.GetVersion(), err)
	}
	out := binary.LittleEndian.AppendUint32(nil, uint32(len(msg)))
	out = append(out, msg...)
	out = binary.LittleEndian.AppendUint64(out, 0) // manifest_pos
	out = binary.LittleEndian.AppendUint16(out, 0) // major
	out = binary.LittleEndian.AppendUint16(out, 2) // minor
	return append(out, magic...), nil
}

// EncodedSize is the protobuf size in bytes of the manifest and its index and transaction
// sections, an estimate of the memory the decoded manifest holds (caches weigh it by this).
func (m *Manifest) EncodedSize() int64 {
	n := proto.Size(m.Proto)
	for _, ix := range m.Indices {
		n += proto.Size(ix)
	}
	if m.Transaction != nil {
		n += proto.Size(m.Transaction)
	}
	return int64(n)
}
