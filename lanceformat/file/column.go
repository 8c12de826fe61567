package file

import (
	"fmt"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/flightd/flightd/lanceformat/encoding"
	"github.com/flightd/flightd/lanceformat/internal/lancepb"
	"github.com/flightd/flightd/lanceformat/internal/lancepb/enc20pb"
	"github.com/flightd/flightd/lanceformat/internal/lancepb/enc21pb"
)

// maxPageBuffers caps the buffers one page may list.
const maxPageBuffers = 1 << 16

// column is one column's metadata: its pages in row order.
type column struct {
	pages  []*page
	starts []uint64 // starts[i] is the first row of page i; starts[len(pages)] is the total
}

// page is one page: where its buffers are and how it is encoded.
type page struct {
	bufs   []Extent
	length uint64
	enc20  *enc20pb.ArrayEncoding // 2.0 files
	enc21  *enc21pb.PageLayout    // 2.1+ files
}

// computeStarts fills starts from the page lengths; it fails if they overflow.
func (c *column) computeStarts() error {
	c.starts = make([]uint64, len(c.pages)+1)
	for i, p := range c.pages {
		c.starts[i+1] = c.starts[i] + p.length
		if c.starts[i+1] < c.starts[i] || p.length > 1<<40 {
			return fmt.Errorf("%w: page %d of %d rows overflows the row count", ErrCorruptFile, i, p.length)
		}
	}
	return nil
}

// parseColumn decodes one ColumnMetadata protobuf.
func parseColumn(b []byte, v Version, fileSize uint64) (*column, error) {
	var cm lancepb.ColumnMetadata
	if err := proto.Unmarshal(b, &cm); err != nil {
		return nil, fmt.Errorf("%w: column metadata: %w", ErrCorruptFile, err)
	}
	if err := checkColumnEncoding(cm.GetEncoding()); err != nil {
		return nil, err
	}
	c := &column{pages: make([]*page, len(cm.GetPages()))}
	for i, pm := range cm.GetPages() {
		p, err := parsePage(pm, v, fileSize)
		if err != nil {
			return nil, fmt.Errorf("page %d: %w", i, err)
		}
		c.pages[i] = p
	}
	return c, nil
}

func checkColumnEncoding(e *lancepb.Encoding) error {
	a, err := unwrapAny(e)
	if err != nil {
		return fmt.Errorf("column encoding: %w", err)
	}
	if typeName(a.GetTypeUrl()) != "lance.encodings.ColumnEncoding" {
		return fmt.Errorf("%w: column encoding type %q", ErrCorruptFile, a.GetTypeUrl())
	}
	var ce enc20pb.ColumnEncoding
	if err := proto.Unmarshal(a.GetValue(), &ce); err != nil {
		return fmt.Errorf("%w: column encoding: %w", ErrCorruptFile, err)
	}
	switch ce.GetColumnEncoding().(type) {
	case *enc20pb.ColumnEncoding_Values, nil:
		return nil
	case *enc20pb.ColumnEncoding_Blob:
		return encoding.NotSupported("blob columns")
	default:
		return encoding.NotSupported("zone index column encoding")
	}
}

func parsePage(pm *lancepb.ColumnMetadata_Page, v Version, fileSize uint64) (*page, error) {
	offs, sizes := pm.GetBufferOffsets(), pm.GetBufferSizes()
	if len(offs) != len(sizes) || len(offs) > maxPageBuffers {
		return nil, fmt.Errorf("%w: %d buffer offsets, %d sizes", ErrCorruptFile, len(offs), len(sizes))
	}
	p := &page{length: pm.GetLength(), bufs: make([]Extent, len(offs))}
	for i := range offs {
		e := Extent{offs[i], sizes[i]}
		if e.Pos > fileSize || e.Size > fileSize-e.Pos {
			return nil, fmt.Errorf("%w: buffer %d at [%d, +%d) past the end (%d)", ErrCorruptFile, i,
				e.Pos, e.Size, fileSize)
		}
		p.bufs[i] = e
	}
	a, err := unwrapAny(pm.GetEncoding())
	if err != nil {
		return nil, err
	}
	name := typeName(a.GetTypeUrl())
	switch {
	case v == V2_0 && name == "lance.encodings.ArrayEncoding":
		p.enc20 = new(enc20pb.ArrayEncoding)
		err = proto.Unmarshal(a.GetValue(), p.enc20)
	case v != V2_0 && name == "lance.encodings21.PageLayout":
		p.enc21 = new(enc21pb.PageLayout)
		err = proto.Unmarshal(a.GetValue(), p.enc21)
	default:
		return nil, encoding.NotSupported("page encoding %q in a %s file", a.GetTypeUrl(), v)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: page encoding: %w", ErrCorruptFile, err)
	}
	return p, nil
}

// unwrapAny returns the Any inside a direct Encoding.
func unwrapAny(e *lancepb.Encoding) (*anypb.Any, error) {
	d := e.GetDirect()
	if d == nil {
		if e.GetIndirect() != nil {
			return nil, encoding.NotSupported("indirect encodings")
		}
		return nil, fmt.Errorf("%w: missing encoding", ErrCorruptFile)
	}
	var a anypb.Any
	if err := proto.Unmarshal(d.GetEncoding(), &a); err != nil {
		return nil, fmt.Errorf("%w: encoding Any: %w", ErrCorruptFile, err)
	}
	return &a, nil
}

// typeName is the part of an Any type URL after the last '/'.
func typeName(url string) string {
	return url[strings.LastIndexByte(url, '/')+1:]
}
