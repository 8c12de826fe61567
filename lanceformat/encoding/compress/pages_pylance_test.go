package compress

// Differential test against pages written by pylance (Rust Lance): the
// generator testdata/gen_pages.py writes single-column 2.1 and 2.2 files and
// describes each page (buffer positions, parsed PageLayout). This file holds a
// minimal, test-only mini-block / full-zip page walker that slices the chunk
// buffers and feeds them to this package's decoders, then compares with the
// values pylance wrote.

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/flightd/flightd/internal/testutil"
	"github.com/stretchr/testify/require"
)

type pyPage struct {
	Buffers  [][2]uint64    `json:"buffers"`
	Encoding map[string]any `json:"encoding"`
}

type pyCase struct {
	Name     string   `json:"name"`
	Version  string   `json:"version"`
	File     string   `json:"file"`
	Pages    []pyPage `json:"pages"`
	Expected struct {
		Kind   string `json:"kind"`
		Bits   int    `json:"bits"`
		Values []any  `json:"values"` // json.Number, string or nil
	} `json:"expected"`
}

// column is the decoded content of all pages of a column.
type column struct {
	fixed  []byte   // fixed-width values (all slots, nulls included)
	texts  [][]byte // variable-width values
	valid  []bool
	isText bool
	reps   []uint16 // repetition levels (list columns)
	defs   []uint16 // definition levels
}

func loadPyCases(t *testing.T) (string, []pyCase) {
	t.Helper()
	py := testutil.Python(t)
	dir := t.TempDir()
	cmd := exec.Command(py, "testdata/gen_pages.py", dir)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "gen_pages.py: %s", out)
	raw, err := os.ReadFile(filepath.Join(dir, "cases.json"))
	require.NoError(t, err)
	var msgs []json.RawMessage
	require.NoError(t, json.Unmarshal(raw, &msgs))
	cases := make([]pyCase, len(msgs))
	for i, m := range msgs {
		dec := json.NewDecoder(bytes.NewReader(m))
		dec.UseNumber()
		require.NoError(t, dec.Decode(&cases[i]))
	}
	return dir, cases
}

func TestPylancePages(t *testing.T) {
	dir, cases := loadPyCases(t)
	require.NotEmpty(t, cases)
	seen := map[string]bool{}
	for _, c := range cases {
		t.Run(c.Name+"_"+c.Version, func(t *testing.T) {
			file, err := os.ReadFile(filepath.Join(dir, c.File))
			require.NoError(t, err)
			var col column
			for _, p := range c.Pages {
				bufs := make([][]byte, len(p.Buffers))
				for i, b := range p.Buffers {
					require.LessOrEqual(t, b[0]+b[1], uint64(len(file)))
					bufs[i] = file[b[0] : b[0]+b[1]]
				}
				require.NoError(t, decodePage(p.Encoding, bufs, &col, len(c.Expected.Values), seen))
			}
			checkExpected(t, c, &col)
		})
	}
	for _, want := range []string{
		"InlineBitpacking", "OutOfLineBitpacking", "Rle", "ByteStreamSplit", "Flat",
		"Variable", "Fsst", "General/CompressionAlgorithmZstd", "General/CompressionAlgorithmLz4",
		"dictionary", "fullzip", "largechunk", "inline-width-0", "constant", "2.0/zstd", "2.0/lz4",
	} {
		require.True(t, seen[want], "no pylance page exercised %s; seen %v", want, seen)
	}
}

func checkExpected(t *testing.T, c pyCase, col *column) {
	t.Helper()
	exp := c.Expected
	n := len(exp.Values)
	if exp.Kind == "list" {
		checkList(t, exp.Bits, exp.Values, col)
		return
	}
	if exp.Kind == "string" {
		require.True(t, col.isText)
		require.Len(t, col.texts, n)
		for i, v := range exp.Values {
			require.Equal(t, v != nil, col.valid[i], "row %d validity", i)
			if v != nil {
				require.Equal(t, v.(string), string(col.texts[i]), "row %d", i)
			}
		}
		return
	}
	bw := exp.Bits / 8
	require.Len(t, col.fixed, n*bw)
	require.Len(t, col.valid, n)
	for i, v := range exp.Values {
		if v == nil {
			require.False(t, col.valid[i], "row %d should be null", i)
			continue
		}
		require.True(t, col.valid[i], "row %d should be valid", i)
		want := parseNumber(t, string(v.(json.Number)))
		got := getWord(col.fixed, i, bw)
		require.Equal(t, want&widthMask(exp.Bits), got, "row %d", i)
	}
}

// checkList rebuilds list<int> rows from one list layer of rep/def levels
// (rep 1 starts a row; def 0 = item, 1 = null list, 2 = empty list when the
// layer is NullAndEmpty) and compares them with the expected rows.
func checkList(t *testing.T, bits int, rows []any, col *column) {
	t.Helper()
	require.Len(t, col.defs, len(col.reps))
	var got [][]uint64
	var null []bool
	item := 0
	for i, r := range col.reps {
		if r == 1 {
			got, null = append(got, []uint64{}), append(null, false)
		}
		require.NotEmpty(t, got, "level %d before the first row", i)
		switch col.defs[i] {
		case 0:
			got[len(got)-1] = append(got[len(got)-1], getWord(col.fixed, item, bits/8))
			item++
		case 1:
			null[len(null)-1] = true
		}
	}
	require.Len(t, col.fixed, item*bits/8, "all visible items consumed")
	require.Len(t, got, len(rows))
	for i, row := range rows {
		if row == nil {
			require.True(t, null[i], "row %d should be null", i)
			continue
		}
		require.False(t, null[i], "row %d should not be null", i)
		items := row.([]any)
		require.Len(t, got[i], len(items), "row %d", i)
		for j, it := range items {
			require.Equal(t, parseNumber(t, string(it.(json.Number)))&widthMask(bits), got[i][j], "row %d item %d", i, j)
		}
	}
}

func parseNumber(t *testing.T, s string) uint64 {
	if strings.HasPrefix(s, "-") {
		v, err := strconv.ParseInt(s, 10, 64)
		require.NoError(t, err)
		return uint64(v)
	}
	v, err := strconv.ParseUint(s, 10, 64)
	require.NoError(t, err)
	return v
}

// --- tiny JSON-tree helpers -------------------------------------------------

func obj(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func num(v any) int {
	n, ok := v.(json.Number)
	if !ok {
		return 0
	}
	i, _ := strconv.Atoi(string(n))
	return i
}

// variant unwraps {"Name": {...}} into ("Name", body).
func variant(v any) (string, map[string]any) {
	for k, b := range obj(v) {
		if k != "_type" {
			return k, obj(b)
		}
	}
	return "", nil
}

// compression returns the variant of a CompressiveEncoding node.
func compression(ce any) (string, map[string]any) {
	return variant(obj(ce)["compression"])
}

func flatBits(ce any) int {
	name, body := compression(ce)
	if name != "Flat" {
		return -1
	}
	return num(body["bits_per_value"])
}

// --- page walkers ------------------------------------------------------------

func decodePage(layoutTree map[string]any, bufs [][]byte, col *column, rows int, seen map[string]bool) error {
	if layoutTree["_type"] == "ArrayEncoding" {
		return decode20Binary(layoutTree, bufs, col, seen)
	}
	name, layout := variant(layoutTree["layout"])
	switch name {
	case "ConstantLayout":
		// Not a compressive encoding: every row is inline_value (the test
		// only writes single-page constant columns, so rows is the page).
		raw, _ := layout["inline_value"].([]any)
		if raw == nil || layout["def_compression"] != nil || len(bufs) != 0 {
			return errors.New("test walker: only all-valid inline constants handled")
		}
		seen["constant"] = true
		for range rows {
			for _, b := range raw {
				col.fixed = append(col.fixed, byte(num(b)))
			}
			col.valid = append(col.valid, true)
		}
		return nil
	case "MiniBlockLayout":
		return decodeMiniBlockPage(layout, bufs, col, seen)
	case "FullZipLayout":
		seen["fullzip"] = true
		return decodeFullZipPage(layout, bufs, col, seen)
	}
	return fmt.Errorf("test walker: layout %q not handled", name)
}

type chunkInfo struct {
	data  []byte
	items int
}

func splitChunks(meta, data []byte, large bool, numItems int) ([]chunkInfo, error) {
	ws := 2
	if large {
		ws = 4
	}
	if len(meta)%ws != 0 {
		return nil, fmt.Errorf("chunk metadata of %d bytes", len(meta))
	}
	var chunks []chunkInfo
	pos, items := 0, 0
	for i := range len(meta) / ws {
		w := getWord(meta, i, ws)
		size := int((w>>4)+1) * 8
		n := numItems - items
		if i < len(meta)/ws-1 {
			n = 1 << (w & 0xF)
		}
		if pos+size > len(data) {
			return nil, fmt.Errorf("chunk %d past end", i)
		}
		chunks = append(chunks, chunkInfo{data: data[pos : pos+size], items: n})
		pos += size
		items += n
	}
	return chunks, nil
}

func pad8(x int) int { return (x + 7) / 8 * 8 }

// chunkParts is one parsed mini-block chunk.
type chunkParts struct {
	numLevels int
	rep, def  []byte
	values    [][]byte
}

// parseChunk parses a chunk header (u16 num_levels, u16 rep_size, u16
// def_size, buffer sizes u16 or u32 in the 2.2 large-chunk grammar) and
// slices the 8-byte aligned parts that follow.
func parseChunk(c []byte, hasRep, hasDef, large bool, nbuf int) chunkParts {
	p := chunkParts{numLevels: int(binary.LittleEndian.Uint16(c))}
	hdr, repSize, defSize := 2, 0, 0
	if hasRep {
		repSize = int(binary.LittleEndian.Uint16(c[hdr:]))
		hdr += 2
	}
	if hasDef {
		defSize = int(binary.LittleEndian.Uint16(c[hdr:]))
		hdr += 2
	}
	sizes := make([]int, nbuf)
	for i := range sizes {
		if large {
			sizes[i] = int(binary.LittleEndian.Uint32(c[hdr:]))
			hdr += 4
		} else {
			sizes[i] = int(binary.LittleEndian.Uint16(c[hdr:]))
			hdr += 2
		}
	}
	pos := pad8(hdr)
	p.rep, pos = c[pos:pos+repSize], pad8(pos+repSize)
	p.def, pos = c[pos:pos+defSize], pad8(pos+defSize)
	for _, s := range sizes {
		p.values = append(p.values, c[pos:pos+s])
		pos = pad8(pos + s)
	}
	return p
}

func decodeLevels(ce any, buf []byte, n int, seen map[string]bool) ([]uint16, error) {
	if ce == nil {
		return nil, nil
	}
	d, err := decodeBlock(ce, buf, n, seen)
	if err != nil {
		return nil, err
	}
	out := make([]uint16, n)
	for i := range out {
		out[i] = uint16(getWord(d.fixed, i, 2))
	}
	return out, nil
}

func decodeMiniBlockPage(l map[string]any, bufs [][]byte, col *column, seen map[string]bool) error {
	large, _ := l["has_large_chunk"].(bool)
	seen["largechunk"] = seen["largechunk"] || large
	chunks, err := splitChunks(bufs[0], bufs[1], large, num(l["num_items"]))
	if err != nil {
		return err
	}
	var dict *decodedValues
	if l["dictionary"] != nil {
		seen["dictionary"] = true
		d, err := decodeBlock(l["dictionary"], bufs[2], num(l["num_dictionary_items"]), seen)
		if err != nil {
			return fmt.Errorf("dictionary: %w", err)
		}
		dict = &d
	}
	for ci, ch := range chunks {
		p := parseChunk(ch.data, l["rep_compression"] != nil, l["def_compression"] != nil, large, num(l["num_buffers"]))
		reps, err := decodeLevels(l["rep_compression"], p.rep, p.numLevels, seen)
		if err != nil {
			return fmt.Errorf("chunk %d rep: %w", ci, err)
		}
		defs, err := decodeLevels(l["def_compression"], p.def, p.numLevels, seen)
		if err != nil {
			return fmt.Errorf("chunk %d def: %w", ci, err)
		}
		valid := make([]bool, ch.items)
		for i := range valid {
			// Without repetition, levels and items match 1:1.
			valid[i] = defs == nil || reps != nil || defs[i] == 0
		}
		vals, err := decodeMiniValues(l["value_compression"], p.values, ch.items, seen)
		if err != nil {
			return fmt.Errorf("chunk %d values: %w", ci, err)
		}
		if dict != nil {
			if vals, err = gather(vals, dict, valid); err != nil {
				return fmt.Errorf("chunk %d gather: %w", ci, err)
			}
		}
		col.reps, col.defs = append(col.reps, reps...), append(col.defs, defs...)
		appendValues(col, vals, valid)
	}
	return nil
}

// validityBitmap converts bools to an LSB-first bitmap.
func validityBitmap(valid []bool) []byte {
	bm := make([]byte, (len(valid)+7)/8)
	for i, v := range valid {
		if v {
			bm[i/8] |= 1 << (i % 8)
		}
	}
	return bm
}

func gather(idx decodedValues, dict *decodedValues, valid []bool) (decodedValues, error) {
	n := len(valid)
	if dict.isText {
		offs, data, err := GatherVariable(idx.fixed, 32, n, dict.offs, dict.data, validityBitmap(valid))
		return decodedValues{isText: true, offs: offs, data: data}, err
	}
	if dict.width%8 != 0 || dict.width == 0 {
		return decodedValues{}, fmt.Errorf("dictionary value width %d", dict.width)
	}
	out, err := GatherFixed(idx.fixed, 32, n, dict.fixed, dict.width/8, validityBitmap(valid))
	return decodedValues{fixed: out}, err
}

func appendValues(col *column, v decodedValues, valid []bool) {
	col.valid = append(col.valid, valid...)
	if v.isText {
		col.isText = true
		for i := 0; i+1 < len(v.offs); i++ {
			col.texts = append(col.texts, v.data[v.offs[i]:v.offs[i+1]])
		}
		return
	}
	col.fixed = append(col.fixed, v.fixed...)
}

type decodedValues struct {
	width  int // bits per fixed-width value, when known
	fixed  []byte
	offs   []uint64
	data   []byte
	isText bool
}

// decodeMiniValues decodes one mini-block chunk's value buffers.
func decodeMiniValues(ce any, bufs [][]byte, n int, seen map[string]bool) (decodedValues, error) {
	name, body := compression(ce)
	seen[name] = true
	switch name {
	case "Flat":
		out, err := DecodeFlat(bufs[0], uint64(num(body["bits_per_value"])), n)
		return decodedValues{fixed: out}, err
	case "InlineBitpacking":
		t := num(body["uncompressed_bits_per_value"])
		if len(bufs[0]) >= t/8 && getWord(bufs[0], 0, t/8) == 0 {
			seen["inline-width-0"] = true
		}
		out, err := DecodeInlineBitpacked(bufs[0], t, n)
		return decodedValues{fixed: out}, err
	case "Rle":
		out, err := DecodeRLE(bufs[0], bufs[1], flatBits(body["values"]), n)
		return decodedValues{fixed: out}, err
	case "ByteStreamSplit":
		out, err := DecodeByteStreamSplit(bufs[0], flatBits(body["values"]), n)
		return decodedValues{fixed: out}, err
	case "General":
		scheme := generalScheme(body, seen)
		first, err := Decompress(scheme, bufs[0], 0)
		if err != nil {
			return decodedValues{}, err
		}
		nb := append([][]byte{first}, bufs[1:]...)
		return decodeMiniValues(body["values"], nb, n, seen)
	case "Variable":
		offs, data, err := DecodeVariableMiniBlock(bufs[0], flatBits(body["offsets"]), n)
		return decodedValues{isText: true, offs: offs, data: data}, err
	case "Fsst":
		inner, err := decodeMiniValues(body["values"], bufs, n, seen)
		if err != nil {
			return inner, err
		}
		return fsstDecode(body, inner)
	}
	return decodedValues{}, fmt.Errorf("test walker: mini-block compression %q not handled", name)
}

func fsstDecode(body map[string]any, inner decodedValues) (decodedValues, error) {
	raw, _ := body["symbol_table"].([]any)
	blob := make([]byte, len(raw))
	for i, b := range raw {
		blob[i] = byte(num(b))
	}
	tab, err := ParseFSSTSymbolTable(blob)
	if err != nil {
		return decodedValues{}, err
	}
	offs, data, err := DecodeFSSTStrings(tab, inner.offs, inner.data)
	return decodedValues{isText: true, offs: offs, data: data}, err
}

func generalScheme(body map[string]any, seen map[string]bool) Scheme {
	s, _ := obj(body["compression"])["scheme"].(string)
	seen["General/"+s] = true
	switch s {
	case "CompressionAlgorithmZstd":
		return SchemeZstd
	case "CompressionAlgorithmLz4":
		return SchemeLZ4
	}
	return SchemeUnspecified
}

// decodeBlock decodes a buffer compressed as a whole (levels, dictionaries).
func decodeBlock(ce any, buf []byte, n int, seen map[string]bool) (decodedValues, error) {
	name, body := compression(ce)
	seen[name] = true
	switch name {
	case "Flat":
		w := num(body["bits_per_value"])
		out, err := DecodeFlat(buf, uint64(w), n)
		return decodedValues{fixed: out, width: w}, err
	case "InlineBitpacking":
		out, err := DecodeInlineBitpacked(buf, num(body["uncompressed_bits_per_value"]), n)
		return decodedValues{fixed: out}, err
	case "OutOfLineBitpacking":
		out, err := DecodeOutOfLineBitpacked(buf, num(body["uncompressed_bits_per_value"]), flatBits(body["values"]), n)
		return decodedValues{fixed: out}, err
	case "Variable":
		offs, data, err := DecodeVariableBlock(buf, n)
		return decodedValues{isText: true, offs: offs, data: data}, err
	case "General":
		scheme := generalScheme(body, seen)
		raw, err := Decompress(scheme, buf, 0)
		if err != nil {
			return decodedValues{}, err
		}
		return decodeBlock(body["values"], raw, n, seen)
	}
	return decodedValues{}, fmt.Errorf("test walker: block compression %q not handled", name)
}

// decodeFullZipPage handles full-zip pages without rep/def levels: each
// variable-width value is a length (u32 or u64) and bytes, compressed per
// value when value_compression is General.
func decodeFullZipPage(l map[string]any, bufs [][]byte, col *column, seen map[string]bool) error {
	if num(l["bits_rep"]) != 0 || num(l["bits_def"]) != 0 {
		return errors.New("test walker: full-zip levels not handled")
	}
	dname, details := variant(l["details"])
	if dname != "BitsPerOffset" {
		return fmt.Errorf("test walker: full-zip %s not handled", dname)
	}
	_ = details
	lw := num(obj(l["details"])["BitsPerOffset"]) / 8
	ce := l["value_compression"]
	name, body := compression(ce)
	seen[name] = true
	var scheme Scheme
	if name == "General" {
		scheme = generalScheme(body, seen)
	}
	data := bufs[0]
	pos := 0
	for i := 0; i < num(l["num_items"]); i++ {
		if pos+lw > len(data) {
			return fmt.Errorf("value %d length past end", i)
		}
		n := int(getWord(data[pos:], 0, lw))
		pos += lw
		v := data[pos : pos+n]
		pos += n
		if scheme != SchemeUnspecified {
			var err error
			if v, err = Decompress(scheme, v, 0); err != nil {
				return fmt.Errorf("value %d: %w", i, err)
			}
		}
		col.isText = true
		col.texts = append(col.texts, v)
		col.valid = append(col.valid, true)
	}
	if pos != len(data) {
		return fmt.Errorf("full-zip: %d trailing bytes", len(data)-pos)
	}
	return nil
}

// decode20Binary handles a 2.0 Binary page without nulls whose bytes buffer
// carries Flat.compression: buffer 0 holds u64 end offsets, buffer 1 the
// compressed bytes.
func decode20Binary(root map[string]any, bufs [][]byte, col *column, seen map[string]bool) error {
	name, bin := variant(root["array_encoding"])
	if name != "Binary" {
		return fmt.Errorf("test walker: 2.0 %s not handled", name)
	}
	_, flat := variant(obj(bin["bytes"])["array_encoding"])
	comp := obj(flat["compression"])
	if comp == nil {
		return errors.New("test walker: 2.0 bytes without compression")
	}
	scheme, err := ParseScheme(comp["scheme"].(string))
	if err != nil {
		return err
	}
	seen["2.0/"+scheme.String()] = true
	data, err := Decompress(scheme, bufs[1], 0)
	if err != nil {
		return err
	}
	start := uint64(0)
	for i := range len(bufs[0]) / 8 {
		end := getWord(bufs[0], i, 8)
		if end < start || end > uint64(len(data)) {
			return fmt.Errorf("2.0 offset %d out of range", i)
		}
		col.texts = append(col.texts, data[start:end])
		col.valid = append(col.valid, true)
		start = end
	}
	col.isText = true
	return nil
}
