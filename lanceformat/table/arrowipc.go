package table

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// A minimal, fully bounds-checked reader for the one Arrow IPC file shape Lance uses for
// ARROW_ARRAY deletion files: one non-null 32-bit integer column, any number of record
// batches, optionally LZ4_FRAME- or ZSTD-compressed buffers. arrow-go's IPC reader trusts
// lengths in the file and can be driven into huge allocations by corrupt input, so it is
// not used here.

const ipcMagic = "ARROW1"

// fb is a bounds-checked view of a flatbuffer.
type fb struct{ b []byte }

var errFB = errors.New("flatbuffer out of bounds")

func (f fb) u32(p int) (uint32, error) {
	if p < 0 || p+4 > len(f.b) {
		return 0, errFB
	}
	return binary.LittleEndian.Uint32(f.b[p:]), nil
}

func (f fb) u16(p int) (uint16, error) {
	if p < 0 || p+2 > len(f.b) {
		return 0, errFB
	}
	return binary.LittleEndian.Uint16(f.b[p:]), nil
}

func (f fb) i64(p int) (int64, error) {
	if p < 0 || p+8 > len(f.b) {
		return 0, errFB
	}
	return int64(binary.LittleEndian.Uint64(f.b[p:])), nil
}

func (f fb) u8(p int) (byte, error) {
	if p < 0 || p >= len(f.b) {
		return 0, errFB
	}
	return f.b[p], nil
}

// field returns the absolute position of field i of the table at pos, or -1 if absent.
func (f fb) field(table, i int) (int, error) {
	so, err := f.u32(table)
	if err != nil {
		return 0, err
	}
	vt := table - int(int32(so))
	vtSize, err := f.u16(vt)
	if err != nil {
		return 0, err
	}
	if 4+2*i+2 > int(vtSize) {
		return -1, nil
	}
	off, err := f.u16(vt + 4 + 2*i)
	if err != nil || off == 0 {
		return -1, err
	}
	return table + int(off), nil
}

// ref follows the uoffset at p (to a table, vector or string).
func (f fb) ref(p int) (int, error) {
	o, err := f.u32(p)
	if err != nil {
		return 0, err
	}
	t := p + int(o)
	if t < 0 || t >= len(f.b) {
		return 0, errFB
	}
	return t, nil
}

// tableField follows field i of table to a sub-table (or vector); -1 if absent.
func (f fb) tableField(table, i int) (int, error) {
	p, err := f.field(table, i)
	if err != nil || p < 0 {
		return -1, err
	}
	return f.ref(p)
}

// vector returns the length of the vector at p and the position of its first element,
// checking that n elements of elemSize bytes fit.
func (f fb) vector(p, elemSize int) (n, start int, err error) {
	l, err := f.u32(p)
	if err != nil {
		return 0, 0, err
	}
	if int64(l)*int64(elemSize) > int64(len(f.b)-p-4) {
		return 0, 0, errFB
	}
	return int(l), p + 4, nil
}

// scalarU8 reads an optional byte field with a default.
func (f fb) scalarU8(table, i int, def byte) (byte, error) {
	p, err := f.field(table, i)
	if err != nil || p < 0 {
		return def, err
	}
	return f.u8(p)
}

func (f fb) scalarI32(table, i int, def int32) (int32, error) {
	p, err := f.field(table, i)
	if err != nil || p < 0 {
		return def, err
	}
	v, err := f.u32(p)
	return int32(v), err
}

// ipcBlock is an Arrow IPC footer Block.
type ipcBlock struct {
	offset, bodyLength int64
	metaLength         int32
}

// ipcFooter parses the file footer: it checks the schema and returns the record batch blocks.
func ipcFooter(data []byte) (signed bool, blocks []ipcBlock, err error) {
	if len(data) < 2*len(ipcMagic)+4 || string(data[:len(ipcMagic)]) != ipcMagic ||
		string(data[len(data)-len(ipcMagic):]) != ipcMagic {
		return false, nil, errors.New("not an Arrow IPC file")
	}
	flen := int(int32(binary.LittleEndian.Uint32(data[len(data)-len(ipcMagic)-4:])))
	end := len(data) - len(ipcMagic) - 4
	if flen <= 0 || flen > end-8 {
		return false, nil, fmt.Errorf("bad footer length %d", flen)
	}
	f := fb{data[end-flen : end]}
	root, err := f.ref(0)
	if err != nil {
		return false, nil, err
	}
	schema, err := f.tableField(root, 1)
	if err != nil || schema < 0 {
		return false, nil, fmt.Errorf("footer schema: %w", errors.Join(err, errFB))
	}
	if signed, err = ipcCheckSchema(f, schema); err != nil {
		return false, nil, err
	}
	vec, err := f.tableField(root, 3)
	if err != nil || vec < 0 {
		return signed, nil, err
	}
	n, start, err := f.vector(vec, 24)
	if err != nil {
		return false, nil, err
	}
	for i := range n {
		p := start + 24*i
		off, _ := f.i64(p)
		ml, _ := f.u32(p + 8)
		body, _ := f.i64(p + 16)
		blocks = append(blocks, ipcBlock{offset: off, metaLength: int32(ml), bodyLength: body})
	}
	return signed, blocks, nil
}

// ipcCheckSchema requires exactly one field of type Int(32).
func ipcCheckSchema(f fb, schema int) (signed bool, err error) {
	fields, err := f.tableField(schema, 1)
	if err != nil || fields < 0 {
		return false, fmt.Errorf("schema fields: %w", errors.Join(err, errFB))
	}
	n, start, err := f.vector(fields, 4)
	if err != nil {
		return false, err
	}
	if n != 1 {
		return false, fmt.Errorf("want 1 column, got %d", n)
	}
	field, err := f.ref(start)
	if err != nil {
		return false, err
	}
	typeType, err := f.scalarU8(field, 2, 0)
	if err != nil {
		return false, err
	}
	const typeInt = 2
	typ, err := f.tableField(field, 3)
	if err != nil {
		return false, err
	}
	if typeType != typeInt || typ < 0 {
		return false, fmt.Errorf("want an integer column, got Arrow type id %d", typeType)
	}
	width, err := f.scalarI32(typ, 0, 0)
	if err != nil {
		return false, err
	}
	sgn, err := f.scalarU8(typ, 1, 0)
	if err != nil {
		return false, err
	}
	if width != 32 {
		return false, fmt.Errorf("want a 32-bit integer column, got %d bits", width)
	}
	return sgn != 0, nil
}

// slice returns data[off : off+n] or an error if it is out of range.
func slice(data []byte, off, n int64) ([]byte, error) {
	if off < 0 || n < 0 || off > int64(len(data)) || n > int64(len(data))-off {
		return nil, fmt.Errorf("range [%d,+%d) outside file of %d bytes", off, n, len(data))
	}
	return data[off : off+n], nil
}

// ipcBatchValues decodes the 32-bit values of the record batch at block b.
func ipcBatchValues(data []byte, b ipcBlock, limit uint64) ([]byte, error) {
	cont, err := slice(data, b.offset, 8)
	if err != nil {
		return nil, err
	}
	msgStart, mlen := b.offset+4, int64(int32(binary.LittleEndian.Uint32(cont)))
	if mlen == -1 { // continuation marker, then the length
		msgStart, mlen = b.offset+8, int64(int32(binary.LittleEndian.Uint32(cont[4:])))
	}
	msg, err := slice(data, msgStart, mlen)
	if err != nil {
		return nil, fmt.Errorf("message: %w", err)
	}
	body, err := slice(data, b.offset+int64(b.metaLength), b.bodyLength)
	if err != nil {
		return nil, fmt.Errorf("body: %w", err)
	}
	f := fb{msg}
	root, err := f.ref(0)
	if err != nil {
		return nil, err
	}
	const headerRecordBatch = 3
	if ht, err := f.scalarU8(root, 1, 0); err != nil || ht != headerRecordBatch {
		return nil, fmt.Errorf("message is not a record batch (type %d): %w", ht, err)
	}
	rb, err := f.tableField(root, 2)
	if err != nil || rb < 0 {
		return nil, fmt.Errorf("record batch header: %w", errors.Join(err, errFB))
	}
	return ipcColumn(f, rb, body, limit)
}

// ipcColumn extracts the (decompressed) value buffer of the single column.
func ipcColumn(f fb, rb int, body []byte, limit uint64) ([]byte, error) {
	nodes, err := f.tableField(rb, 1)
	if err != nil || nodes < 0 {
		return nil, fmt.Errorf("record batch nodes: %w", errors.Join(err, errFB))
	}
	nn, nstart, err := f.vector(nodes, 16)
	if err != nil || nn != 1 {
		return nil, fmt.Errorf("want 1 field node, got %d: %w", nn, err)
	}
	n, _ := f.i64(nstart)
	nulls, _ := f.i64(nstart + 8)
	if n < 0 || uint64(n) > limit {
		return nil, fmt.Errorf("%d deleted rows, more than the %d rows of the fragment", n, limit)
	}
	if nulls != 0 {
		return nil, fmt.Errorf("deleted offsets contain %d nulls", nulls)
	}
	bufs, err := f.tableField(rb, 2)
	if err != nil || bufs < 0 {
		return nil, fmt.Errorf("record batch buffers: %w", errors.Join(err, errFB))
	}
	nb, bstart, err := f.vector(bufs, 16)
	if err != nil || nb != 2 {
		return nil, fmt.Errorf("want 2 buffers, got %d: %w", nb, err)
	}
	off, _ := f.i64(bstart + 16)
	length, _ := f.i64(bstart + 24)
	raw, err := slice(body, off, length)
	if err != nil {
		return nil, fmt.Errorf("value buffer: %w", err)
	}
	comp, err := f.tableField(rb, 3)
	if err != nil {
		return nil, err
	}
	want := 4 * n
	if comp >= 0 && len(raw) > 0 {
		codec, err := f.scalarU8(comp, 0, 0)
		if err != nil {
			return nil, err
		}
		if raw, err = ipcDecompress(codec, raw, want); err != nil {
			return nil, err
		}
	}
	if int64(len(raw)) < want {
		return nil, fmt.Errorf("value buffer of %d bytes for %d values", len(raw), n)
	}
	return raw[:want], nil
}

// ipcDecompress decodes one compressed IPC buffer: i64 uncompressed length (-1: stored
// raw), then an LZ4 frame (codec 0) or a zstd frame (codec 1). The result must be want bytes.
func ipcDecompress(codec byte, buf []byte, want int64) ([]byte, error) {
	if len(buf) < 8 {
		return nil, errors.New("compressed buffer shorter than its length prefix")
	}
	ulen := int64(binary.LittleEndian.Uint64(buf))
	if ulen == -1 {
		return buf[8:], nil
	}
	if ulen != want {
		return nil, fmt.Errorf("compressed buffer claims %d bytes, want %d", ulen, want)
	}
	out := make([]byte, want)
	var r io.Reader
	switch codec {
	case 0:
		r = lz4.NewReader(bytes.NewReader(buf[8:]))
	case 1:
		d, err := zstd.NewReader(bytes.NewReader(buf[8:]), zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderMaxMemory(uint64(want)+1<<20))
		if err != nil {
			return nil, fmt.Errorf("zstd: %w", err)
		}
		defer d.Close()
		r = d
	default:
		return nil, fmt.Errorf("unknown IPC compression codec %d", codec)
	}
	if _, err := io.ReadFull(r, out); err != nil {
		return nil, fmt.Errorf("decompress buffer: %w", err)
	}
	return out, nil
}

// decodeIPCDeletions reads all batches' values.
func decodeIPCDeletions(data []byte, limit uint64) ([]uint32, error) {
	signed, blocks, err := ipcFooter(data)
	if err != nil {
		return nil, err
	}
	var out []uint32
	for i, b := range blocks {
		raw, err := ipcBatchValues(data, b, limit-uint64(len(out)))
		if err != nil {
			return nil, fmt.Errorf("record batch %d: %w", i, err)
		}
		for k := 0; k < len(raw); k += 4 {
			v := binary.LittleEndian.Uint32(raw[k:])
			if (signed && int32(v) < 0) || uint64(v) >= limit {
				return nil, fmt.Errorf("deleted offset %d out of range [0,%d)", int32(v), limit)
			}
			out = append(out, v)
		}
	}
	return sortedUnique(out), nil
}
