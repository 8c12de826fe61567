package file

import (
	"encoding/binary"
	"fmt"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/flightd/flightd/lanceformat/encoding"
	"github.com/flightd/flightd/lanceformat/internal/lancepb"
	"github.com/flightd/flightd/lanceformat/internal/lancepb/enc20pb"
	"github.com/flightd/flightd/lanceformat/schema"
)

// Layout constants of the written file (§5.1).
const (
	bufferAlign = 64
	padByte     = 0x48 // the byte Lance pads buffers with

	typeURLArrayEncoding  = "/lance.encodings.ArrayEncoding"
	typeURLPageLayout     = "/lance.encodings21.PageLayout"
	typeURLColumnEncoding = "/lance.encodings.ColumnEncoding"
)

// fileBuilder accumulates the bytes of a file being written: page buffers first (each
// padded to 64 bytes), then at finish the schema, column metadata, tables and footer.
type fileBuilder struct {
	version    Version
	data       []byte
	pages      [][]*lancepb.ColumnMetadata_Page // per column
	structRows []uint64                         // 2.0: rows of each struct header column
	isStruct   []bool
}

func newFileBuilder(v Version, numCols int) *fileBuilder {
	return &fileBuilder{version: v, pages: make([][]*lancepb.ColumnMetadata_Page, numCols),
		structRows: make([]uint64, numCols), isStruct: make([]bool, numCols)}
}

// putBuffer appends b padded to 64 bytes and returns its position.
func (fb *fileBuilder) putBuffer(b []byte) uint64 {
	pos := uint64(len(fb.data))
	fb.data = append(fb.data, b...)
	for len(fb.data)%bufferAlign != 0 {
		fb.data = append(fb.data, padByte)
	}
	return pos
}

// directAny wraps a message as a direct Encoding holding an Any with the given type URL.
func directAny(url string, m proto.Message) (*lancepb.Encoding, error) {
	v, err := proto.Marshal(m)
	if err != nil {
		return nil, err
	}
	a, err := proto.Marshal(&anypb.Any{TypeUrl: url, Value: v})
	if err != nil {
		return nil, err
	}
	return &lancepb.Encoding{Location: &lancepb.Encoding_Direct{Direct: &lancepb.DirectEncoding{Encoding: a}}}, nil
}

// addPage writes the buffers of page p of column col; firstRow is the top-level row number
// of its first row (the 2.1+ page priority). 2.0 struct header pages are merged into one
// page per column, written at finish, as Lance does.
func (fb *fileBuilder) addPage(col int, p *encoding.EncodedPage, firstRow uint64) error {
	if p.Array != nil && p.Array.GetStruct() != nil {
		fb.isStruct[col] = true
		fb.structRows[col] += p.Rows
		return nil
	}
	mp := &lancepb.ColumnMetadata_Page{Length: p.Rows}
	var err error
	if p.Array != nil {
		mp.Encoding, err = directAny(typeURLArrayEncoding, p.Array)
	} else {
		mp.Encoding, err = directAny(typeURLPageLayout, p.Layout)
		mp.Priority = firstRow
	}
	if err != nil {
		return fmt.Errorf("page encoding: %w", err)
	}
	for _, b := range p.Buffers {
		mp.BufferOffsets = append(mp.BufferOffsets, fb.putBuffer(b))
		mp.BufferSizes = append(mp.BufferSizes, uint64(len(b)))
	}
	fb.pages[col] = append(fb.pages[col], mp)
	return nil
}

// finish appends the schema (global buffer 0), the column metadata, the CMO and GBO tables
// and the footer, and returns the whole file.
func (fb *fileBuilder) finish(sc *schema.Schema, rows uint64) ([]byte, error) {
	for col, ok := range fb.isStruct {
		if ok {
			enc, err := directAny(typeURLArrayEncoding, &enc20pb.ArrayEncoding{
				ArrayEncoding: &enc20pb.ArrayEncoding_Struct{Struct: &enc20pb.SimpleStruct{}}})
			if err != nil {
				return nil, err
			}
			fb.pages[col] = append(fb.pages[col], &lancepb.ColumnMetadata_Page{Length: fb.structRows[col], Encoding: enc})
		}
	}
	desc, err := fileDescriptor(sc, rows)
	if err != nil {
		return nil, err
	}
	schemaPos := uint64(len(fb.data)) // 64-aligned: every buffer before it is padded
	fb.data = append(fb.data, desc...)
	colEnc, err := directAny(typeURLColumnEncoding, &enc20pb.ColumnEncoding{
		ColumnEncoding: &enc20pb.ColumnEncoding_Values{Values: &emptypb.Empty{}}})
	if err != nil {
		return nil, err
	}
	metaStart := uint64(len(fb.data))
	cmo := make([]Extent, len(fb.pages))
	for i, pages := range fb.pages {
		b, err := proto.Marshal(&lancepb.ColumnMetadata{Encoding: colEnc, Pages: pages})
		if err != nil {
			return nil, fmt.Errorf("column %d metadata: %w", i, err)
		}
		cmo[i] = Extent{Pos: uint64(len(fb.data)), Size: uint64(len(b))}
		fb.data = append(fb.data, b...)
	}
	cmoStart := uint64(len(fb.data))
	for _, e := range cmo {
		fb.data = binary.LittleEndian.AppendUint64(fb.data, e.Pos)
		fb.data = binary.LittleEndian.AppendUint64(fb.data, e.Size)
	}
	gboStart := uint64(len(fb.data))
	fb.data = binary.LittleEndian.AppendUint64(fb.data, schemaPos)
	fb.data = binary.LittleEndian.AppendUint64(fb.data, uint64(len(desc)))
	major, minor := uint16(2), uint16(fb.version-V2_0)
	if fb.version == V2_0 {
		major, minor = 0, 3
	}
	for _, v := range []uint64{metaStart, cmoStart, gboStart} {
		fb.data = binary.LittleEndian.AppendUint64(fb.data, v)
	}
	fb.data = binary.LittleEndian.AppendUint32(fb.data, 1)
	fb.data = binary.LittleEndian.AppendUint32(fb.data, uint32(len(fb.pages)))
	fb.data = binary.LittleEndian.AppendUint16(fb.data, major)
	fb.data = binary.LittleEndian.AppendUint16(fb.data, minor)
	fb.data = append(fb.data, footerMagic...)
	return fb.data, nil
}

// fileDescriptor serializes global buffer 0: the schema with its field ids and the row
// count (§5.2).
func fileDescriptor(sc *schema.Schema, rows uint64) ([]byte, error) {
	fields, err := sc.ToProto()
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	pbSchema := &lancepb.Schema{Fields: fields}
	if len(sc.Metadata) > 0 {
		pbSchema.Metadata = make(map[string][]byte, len(sc.Metadata))
		for k, v := range sc.Metadata {
			pbSchema.Metadata[k] = []byte(v)
		}
	}
	desc, err := proto.Marshal(&lancepb.FileDescriptor{Schema: pbSchema, Length: rows})
	if err != nil {
		return nil, fmt.Errorf("file descriptor: %w", err)
	}
	return desc, nil
}
