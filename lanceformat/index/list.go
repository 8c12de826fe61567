package index

import (
	"context"
	"encoding/hex"
	"fmt"
	"path"
	"slices"

	"github.com/flightd/flightd/lanceformat/internal/lancepb"
	"github.com/flightd/flightd/lanceformat/table"
)

// Info is one logical index of a dataset version: all segments sharing a name.
type Info struct {
	// Name is the index name; segments with the same name form one index.
	Name string
	// Fields are the indexed field ids (normally one).
	Fields []int32
	// Type is the index type; TypeUnknown if neither the details nor the files tell.
	Type Type
	// TypeURL is the index_details type URL ("" for legacy metadata without details).
	TypeURL string
	// Segments are the index's segments, in manifest order.
	Segments []Segment
}

// Supported reports whether Search works for this index ("not supported yet" otherwise).
func (i *Info) Supported() bool { return i.Type.Supported() }

// Covered is the union of the fragments the segments cover, ascending.
func (i *Info) Covered() []uint32 {
	var out []uint32
	for _, s := range i.Segments {
		out = append(out, s.Fragments...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Segment is one IndexMetadata entry: one directory of index files.
type Segment struct {
	// UUID is the hyphenated lowercase segment id; its files are in _indices/{UUID}/.
	UUID string
	// DatasetVersion is the version the segment was built at.
	DatasetVersion uint64
	// Fragments are the covered fragment ids that exist in the manifest, ascending
	// (fragment bitmaps of old writers may name fragments that are gone).
	Fragments []uint32
	// FragmentsKnown is false for legacy metadata without a fragment bitmap.
	FragmentsKnown bool
	// IndexVersion is the per-type format version (0 for current scalar indices).
	IndexVersion int32
	// CreatedAtMillis is the creation time in ms since the epoch, 0 if not recorded.
	CreatedAtMillis uint64
	// Files are the index files and sizes, if the writer listed them.
	Files []File
	// Dir is the segment directory relative to the dataset root ("_indices/{UUID}").
	Dir string
	// Meta is the decoded IndexMetadata message.
	Meta *lancepb.IndexMetadata
}

// File is one index file of a segment, as listed in IndexMetadata.files.
type File struct {
	Path      string
	SizeBytes uint64
}

// List returns the indices of manifest m, grouped by name in order of first appearance.
// ds is used only to infer the type of legacy segments without index_details from their
// files; it may be nil.
func List(ctx context.Context, ds *table.Dataset, m *table.Manifest) ([]Info, error) {
	live := make(map[uint32]bool, len(m.Fragments()))
	for _, f := range m.Fragments() {
		live[uint32(f.GetId())] = true
	}
	var out []Info
	pos := map[string]int{}
	for _, ix := range m.Indices {
		seg, err := decodeSegment(ix, live)
		if err != nil {
			return nil, fmt.Errorf("list indices of version %d: index %q: %w", m.Version(), ix.GetName(), err)
		}
		url := ix.GetIndexDetails().GetTypeUrl()
		t := TypeFromURL(url)
		if url == "" && ds != nil {
			if t, err = inferType(ctx, ds, m, seg.Dir, ix.GetFields()); err != nil {
				return nil, fmt.Errorf("list indices of version %d: index %q: %w", m.Version(), ix.GetName(), err)
			}
		}
		i, ok := pos[ix.GetName()]
		if !ok {
			i = len(out)
			pos[ix.GetName()] = i
			out = append(out, Info{Name: ix.GetName(), Fields: slices.Clone(ix.GetFields()), Type: t, TypeURL: url})
		}
		out[i].Segments = append(out[i].Segments, seg)
	}
	return out, nil
}

// decodeSegment turns one IndexMetadata into a Segment.
func decodeSegment(ix *lancepb.IndexMetadata, live map[uint32]bool) (Segment, error) {
	id := ix.GetUuid().GetUuid()
	if len(id) != 16 {
		return Segment{}, corrupt("uuid has %d bytes, want 16", len(id))
	}
	s := Segment{UUID: formatUUID(id), DatasetVersion: ix.GetDatasetVersion(), IndexVersion: ix.GetIndexVersion(),
		CreatedAtMillis: ix.GetCreatedAt(), Meta: ix}
	s.Dir = path.Join("_indices", s.UUID)
	if b := ix.GetFragmentBitmap(); len(b) > 0 {
		frags, err := table.DecodeRoaring(b, 1<<32)
		if err != nil {
			return Segment{}, fmt.Errorf("%w: fragment bitmap: %w", ErrCorruptIndex, err)
		}
		s.FragmentsKnown = true
		for _, f := range frags {
			if live[f] {
				s.Fragments = append(s.Fragments, f)
			}
		}
	}
	for _, f := range ix.GetFiles() {
		s.Files = append(s.Files, File{Path: f.GetPath(), SizeBytes: f.GetSizeBytes()})
	}
	return s, nil
}

// formatUUID formats 16 bytes as a hyphenated lowercase UUID.
func formatUUID(b []byte) string {
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// parseUUID parses a hyphenated (or plain) hex UUID into 16 bytes.
func parseUUID(s string) ([]byte, error) {
	var clean []byte
	for i := range len(s) {
		if s[i] != '-' {
			clean = append(clean, s[i])
		}
	}
	b, err := hex.DecodeString(string(clean))
	if err != nil || len(b) != 16 {
		return nil, fmt.Errorf("invalid uuid %q", s)
	}
	return b, nil
}

// inferType guesses the type of a legacy segment from the names of its files (§8) and, for
// bitmap files, from whether the indexed field is a list.
func inferType(ctx context.Context, ds *table.Dataset, m *table.Manifest, dir string, fields []int32) (Type, error) {
	objs, err := ds.Store().List(ctx, ds.Path(dir)+"/")
	if err != nil {
		return TypeUnknown, fmt.Errorf("infer type from %s: %w", dir, err)
	}
	for _, o := range objs {
		switch path.Base(o.Path) {
		case btreeLookupFile, btreeDataFile:
			return TypeBTree, nil
		case bitmapFile:
			if isListField(m, fields) {
				return TypeLabelList, nil
			}
			return TypeBitmap, nil
		case zoneMapFile:
			return TypeZoneMap, nil
		case bloomFile:
			return TypeBloomFilter, nil
		case "index.idx":
			return TypeVector, nil
		}
	}
	return TypeUnknown, nil
}

// isListField reports whether the first indexed field is a list.
func isListField(m *table.Manifest, fields []int32) bool {
	if len(fields) == 0 {
		return false
	}
	for _, f := range m.Fields() {
		if f.GetId() == fields[0] {
			return f.GetLogicalType() == "list" || f.GetLogicalType() == "large_list"
		}
	}
	return false
}
