package file

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/lanceformat/encoding"
	"github.com/flightd/flightd/lanceformat/schema"
)

// leafOptions reads the encoding settings (lance-encoding:compression and
// lance-encoding:compression-level) of each column of top-level field f, in column order:
// its leaves for 2.1+, every field of its subtree for 2.0.
func leafOptions(f *schema.Field, v Version) ([]encoding.LeafOptions, error) {
	leaves := f.Leaves()
	if v == V2_0 {
		leaves = f.PreOrder()
	}
	out := make([]encoding.LeafOptions, len(leaves))
	for i, l := range leaves {
		o, err := encoding.LeafOptionsFromMetadata(l.Metadata)
		if err != nil {
			return nil, fmt.Errorf("field %q: %w", l.Name, err)
		}
		out[i] = o
	}
	return out, nil
}

// checkVersionTypes rejects types the encoder of version v cannot write: Arrow dictionary
// arrays are written to 2.1+ files only (not supported yet: dictionaries in 2.0 files), and
// maps to 2.2+ files only (Lance has no maps before 2.2).
func checkVersionTypes(f *schema.Field, v Version) error {
	for _, g := range f.PreOrder() {
		switch id := g.Type.ID(); {
		case id == arrow.DICTIONARY && v == V2_0:
			return encoding.NotSupported("writing Arrow dictionary column %q to a 2.0 file", g.Name)
		case id == arrow.MAP && v < V2_2:
			return encoding.NotSupported("writing map column %q to a %s file (maps need 2.2)", g.Name, v)
		}
	}
	return nil
}

// hasDictionary reports whether an Arrow dictionary lies anywhere in field f.
func hasDictionary(f *schema.Field) bool {
	for _, g := range f.PreOrder() {
		if g.Type.ID() == arrow.DICTIONARY {
			return true
		}
	}
	return false
}

// flushEach encodes the buffered batches of a field holding Arrow dictionaries one batch
// at a time: batches may carry different dictionaries, whose union need not fit the key
// type, so they are not concatenated; each page keeps its batch's dictionary.
func (w *Writer) flushEach(fs *fieldState) error {
	pending := fs.pending
	fs.pending, fs.bytes = nil, 0
	var err error
	for _, a := range pending {
		if err == nil {
			err = w.encodePages(fs, a)
		}
		a.Release()
	}
	return err
}
