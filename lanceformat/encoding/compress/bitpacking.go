package compress

// Inline and out-of-line bit-packing (CompressiveEncoding variants 5 and 4).

// maxBitWidth returns the bit width of the largest of the n little-endian
// words of byte width bw in values.
func maxBitWidth(values []byte, n, bw int) int {
	var or uint64
	for i := range n {
		or |= getWord(values, i, bw)
	}
	return bitWidth(or)
}

// checkValues validates that values holds a whole number of t-bit words and
// returns the number of words.
func checkValues(what string, values []byte, t int) (int, error) {
	if err := checkWordBits(what, t); err != nil {
		return 0, err
	}
	bw := t / 8
	if len(values)%bw != 0 {
		return 0, corruptf("%s: %d bytes is not a whole number of %d-bit values", what, len(values), t)
	}
	return len(values) / bw, nil
}

// DecodeInlineBitpacked decodes InlineBitpacking data: a sequence of blocks,
// each one little-endian word of t bits (t = uncompressed_bits_per_value:
// 8, 16, 32 or 64) holding the packed width W, followed by 128*W bytes of
// FastLanes-packed 1024 values. It returns the first n values (n*t/8 bytes,
// little-endian), reading ceil(n/1024) blocks; the last block is zero-padded
// to 1024 values by the writer. In a mini-block chunk there is exactly one
// block (n <= 1024); as a block compressor (rep/def levels) there may be
// several. Bytes after the last needed block are ignored.
func DecodeInlineBitpacked(data []byte, t int, n int) ([]byte, error) {
	if err := checkWordBits("inline bitpacking", t); err != nil {
		return nil, err
	}
	if err := checkCount("inline bitpacking", n); err != nil {
		return nil, err
	}
	bw := t / 8
	blocks := (n + FastLanesBlockValues - 1) / FastLanesBlockValues
	if blocks > len(data)/bw {
		return nil, corruptf("inline bitpacking: %d values need %d blocks but only %d bytes are present", n, blocks, len(data))
	}
	out := make([]byte, blocks*FastLanesBlockValues*bw)
	pos := 0
	for b := range blocks {
		if len(data)-pos < bw {
			return nil, corruptf("inline bitpacking: block %d header truncated at byte %d of %d", b, pos, len(data))
		}
		w64 := getWord(data[pos:], 0, bw)
		pos += bw
		if w64 > uint64(t) {
			return nil, corruptf("inline bitpacking: block %d has packed width %d > %d", b, w64, t)
		}
		w := int(w64)
		size := FastLanesPackedSize(w)
		if len(data)-pos < size {
			return nil, corruptf("inline bitpacking: block %d (width %d) needs %d bytes, %d left", b, w, size, len(data)-pos)
		}
		dst := out[b*FastLanesBlockValues*bw:]
		if err := FastLanesUnpack(t, w, data[pos:pos+size], dst); err != nil {
			return nil, err
		}
		pos += size
	}
	return out[:n*bw], nil
}

// EncodeInlineBitpacked encodes values (little-endian words of t bits) as
// InlineBitpacking blocks: one block per 1024 values, each with its own packed
// width (the bit width of the block's largest value), the last block
// zero-padded. It returns the concatenated blocks; block i occupies
// t/8 + 128*W_i bytes. For a mini-block page, call it once per chunk of at
// most 1024 values (one block per chunk, as Lance does). No values encode to
// an empty slice.
func EncodeInlineBitpacked(values []byte, t int) ([]byte, error) {
	n, err := checkValues("inline bitpacking", values, t)
	if err != nil {
		return nil, err
	}
	bw := t / 8
	var out []byte
	block := make([]byte, FastLanesBlockValues*bw)
	for start := 0; start < n; start += FastLanesBlockValues {
		m := min(FastLanesBlockValues, n-start)
		clear(block)
		copy(block, values[start*bw:(start+m)*bw])
		w := maxBitWidth(block, m, bw)
		hdr := len(out)
		out = append(out, make([]byte, bw)...)
		putWord(out[hdr:], 0, bw, uint64(w))
		if out, err = FastLanesPack(out, t, w, block); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// DecodeOutOfLineBitpacked decodes OutOfLineBitpacking data (used by Lance as
// a block compressor for rep/def levels): t is uncompressed_bits_per_value,
// w is values.flat.bits_per_value (the page-wide packed width) and n the
// number of values. Full 1024-blocks are 1024*w/t FastLanes words each with
// no header. A tail of t' = n mod 1024 values is either one more zero-padded
// packed block, or t' raw t-bit words; it is raw exactly when the buffer holds
// full_blocks*1024*w/t + t' words (Lance's rule). The buffer must be a whole
// number of t-bit words.
func DecodeOutOfLineBitpacked(data []byte, t, w int, n int) ([]byte, error) {
	if err := checkFastLanes(t, w); err != nil {
		return nil, err
	}
	if err := checkCount("out-of-line bitpacking", n); err != nil {
		return nil, err
	}
	bw := t / 8
	if len(data)%bw != 0 {
		return nil, corruptf("out-of-line bitpacking: %d bytes is not a whole number of %d-bit words", len(data), t)
	}
	totalWords := len(data) / bw
	wordsPerBlock := FastLanesBlockValues * w / t
	full, tail := n/FastLanesBlockValues, n%FastLanesBlockValues
	fullWords := full * wordsPerBlock
	rawTail := tail > 0 && totalWords == fullWords+tail
	need := fullWords
	if tail > 0 && !rawTail {
		need += wordsPerBlock
	}
	if totalWords < need {
		return nil, corruptf("out-of-line bitpacking: %d words for %d values at width %d (t=%d)", totalWords, n, w, t)
	}
	if w == 0 && n > maxZeroWidthValues {
		return nil, corruptf("out-of-line bitpacking: %d zero-width values exceeds limit %d", n, maxZeroWidthValues)
	}
	blocks := full
	if tail > 0 && !rawTail {
		blocks++
	}
	out := make([]byte, max(blocks*FastLanesBlockValues, n)*bw)
	for b := range blocks {
		src := data[b*wordsPerBlock*bw : (b+1)*wordsPerBlock*bw]
		if err := FastLanesUnpack(t, w, src, out[b*FastLanesBlockValues*bw:]); err != nil {
			return nil, err
		}
	}
	if rawTail {
		copy(out[full*FastLanesBlockValues*bw:], data[fullWords*bw:(fullWords+tail)*bw])
	}
	return out[:n*bw], nil
}

// maxZeroWidthValues bounds how many values a zero-byte, zero-width
// out-of-line bit-packed buffer may claim (rep/def levels per page).
const maxZeroWidthValues = 1 << 20

// EncodeOutOfLineBitpacked encodes values (little-endian words of t bits) with
// one packed width for the whole buffer, as Lance's OutOfLineBitpacking block
// compressor does: w is the bit width of the largest value. Full blocks are
// packed; the tail (n mod 1024 = t' > 0 values) is packed as a zero-padded
// block only when w*(1024-t') < (t-w)*t', otherwise appended raw, so that
// DecodeOutOfLineBitpacked (and Lance) read it back. The caller records w as
// values.flat.bits_per_value.
func EncodeOutOfLineBitpacked(values []byte, t int) (packed []byte, w int, err error) {
	n, err := checkValues("out-of-line bitpacking", values, t)
	if err != nil {
		return nil, 0, err
	}
	bw := t / 8
	w = maxBitWidth(values, n, bw)
	full, tail := n/FastLanesBlockValues, n%FastLanesBlockValues
	out := make([]byte, 0, full*FastLanesPackedSize(w)+FastLanesBlockValues*bw)
	for b := range full {
		if out, err = FastLanesPack(out, t, w, values[b*FastLanesBlockValues*bw:]); err != nil {
			return nil, 0, err
		}
	}
	if tail == 0 {
		return out, w, nil
	}
	tailBytes := values[full*FastLanesBlockValues*bw:]
	if w*(FastLanesBlockValues-tail) < (t-w)*tail {
		block := make([]byte, FastLanesBlockValues*bw)
		copy(block, tailBytes)
		out, err = FastLanesPack(out, t, w, block)
		return out, w, err
	}
	return append(out, tailBytes...), w, nil
}

// AppendInlineBitpacked is DecodeInlineBitpacked appending the n decoded values to dst:
// whole 1024-value blocks are unpacked in place when dst has room for them, so a caller
// that reserved the output decodes without an intermediate buffer; a partial last block
// goes through a scratch block.
func AppendInlineBitpacked(dst, data []byte, t int, n int) ([]byte, error) {
	if err := checkWordBits("inline bitpacking", t); err != nil {
		return dst, err
	}
	if err := checkCount("inline bitpacking", n); err != nil {
		return dst, err
	}
	bw := t / 8
	blocks := (n + FastLanesBlockValues - 1) / FastLanesBlockValues
	if blocks > len(data)/bw {
		return dst, corruptf("inline bitpacking: %d values need %d blocks but only %d bytes are present", n, blocks, len(data))
	}
	start, pos := len(dst), 0
	var scratch []byte
	for b := range blocks {
		if len(data)-pos < bw {
			return dst[:start], corruptf("inline bitpacking: block %d header truncated at byte %d of %d", b, pos, len(data))
		}
		w64 := getWord(data[pos:], 0, bw)
		pos += bw
		if w64 > uint64(t) {
			return dst[:start], corruptf("inline bitpacking: block %d has packed width %d > %d", b, w64, t)
		}
		size := FastLanesPackedSize(int(w64))
		if len(data)-pos < size {
			return dst[:start], corruptf("inline bitpacking: block %d (width %d) needs %d bytes, %d left", b, w64, size, len(data)-pos)
		}
		vals := min(FastLanesBlockValues, n-b*FastLanesBlockValues)
		full := FastLanesBlockValues * bw
		if vals == FastLanesBlockValues && cap(dst)-len(dst) >= full {
			if err := FastLanesUnpack(t, int(w64), data[pos:pos+size], dst[len(dst):len(dst)+full]); err != nil {
				return dst[:start], err
			}
			dst = dst[:len(dst)+full]
		} else {
			if scratch == nil {
				scratch = make([]byte, full)
			}
			if err := FastLanesUnpack(t, int(w64), data[pos:pos+size], scratch); err != nil {
				return dst[:start], err
			}
			dst = append(dst, scratch[:vals*bw]...)
		}
		pos += size
	}
	return dst, nil
}
