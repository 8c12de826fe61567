package compress

import (
	"encoding/binary"
	"fmt"
)

// MaxRunLength is the longest run one RLE entry with u8 run lengths can
// describe; longer runs are split into several entries.
const MaxRunLength = 255

// checkLenBits validates an RLE run-length width (8 or 16 bits) and returns
// the longest run one entry can hold.
func checkLenBits(lenBits int) (int, error) {
	switch lenBits {
	case 8:
		return MaxRunLength, nil
	case 16:
		return 1<<16 - 1, nil
	}
	return 0, corruptf("rle: run-length width %d bits, want 8 or 16", lenBits)
}

// DecodeRLE decodes Lance's run-length encoding (CompressiveEncoding variant
// 8, Rle{values: Flat(t), run_lengths: Flat(8)}) in a mini-block chunk:
// values holds one t-bit little-endian word per run (t = 8, 16, 32 or 64)
// and lengths one u8 run length per run. It is DecodeRLEWidth with lenBits 8.
func DecodeRLE(values, lengths []byte, t int, n int) ([]byte, error) {
	return DecodeRLEWidth(values, lengths, t, 8, n)
}

// DecodeRLEWidth decodes RLE with run lengths of lenBits bits (8, or 16 as
// newer Lance writers may choose: run_lengths Flat(16)). Runs are expanded in
// order until n values are produced; runs beyond that are ignored (as the
// Nov 2025 Lance reader does; newer readers reject them). It is an error if
// the runs hold fewer than n values or the two buffers disagree on the number
// of runs.
func DecodeRLEWidth(values, lengths []byte, t, lenBits int, n int) ([]byte, error) {
	if n <= 0 {
		if err := checkCount("rle", n); err != nil {
			return nil, err
		}
	}
	return AppendRLEWidth(make([]byte, 0, max(n, 0)*(t/8)), values, lengths, t, lenBits, n)
}

// AppendRLEWidth is DecodeRLEWidth appending the n values to dst (growing it if its
// capacity is short) instead of returning them in a new buffer, so a caller can decode
// straight into its output. On error dst's contents up to its length are unchanged.
func AppendRLEWidth(dst, values, lengths []byte, t, lenBits int, n int) ([]byte, error) {
	if err := checkCount("rle", n); err != nil {
		return dst, err
	}
	maxRun, err := checkLenBits(lenBits)
	if err != nil {
		return dst, err
	}
	runs, err := checkValues("rle", values, t)
	if err != nil {
		return dst, err
	}
	if n == 0 {
		return dst, nil
	}
	lb := lenBits / 8
	if len(lengths)%lb != 0 || runs != len(lengths)/lb {
		return dst, corruptf("rle: %d run values but %d bytes of %d-bit run lengths", runs, len(lengths), lenBits)
	}
	if n/maxRun > runs {
		return dst, corruptf("rle: %d runs cannot hold %d values", runs, n)
	}
	bw := t / 8
	start := len(dst)
	if cap(dst)-start < n*bw {
		grown := make([]byte, start, start+n*bw)
		copy(grown, dst)
		dst = grown
	}
	out := dst[start : start+n*bw]
	pos, typed := fillRunsTyped(out, values, lengths, bw, lb, n)
	for r := 0; !typed && r < runs && pos < n; r++ {
		end := min(n, pos+int(getWord(lengths, r, lb)))
		fillRun(out[pos*bw:end*bw], values[r*bw:(r+1)*bw])
		pos = end
	}
	if pos != n {
		return dst[:start], corruptf("rle: runs hold %d values, want %d", pos, n)
	}
	return dst[:start+n*bw], nil
}

// DecodeRLEBlock decodes RLE used as a block compressor (newer Lance, for
// example 2.2 ConstantLayout rep/def levels): the buffer is
// "u64 LE values_size | values (values_size bytes) | run lengths".
func DecodeRLEBlock(data []byte, t, lenBits int, n int) ([]byte, error) {
	if len(data) < 8 {
		return nil, corruptf("rle block: %d bytes is too short for the frame header", len(data))
	}
	size := binary.LittleEndian.Uint64(data)
	if size > uint64(len(data)-8) {
		return nil, corruptf("rle block: values size %d exceeds %d bytes", size, len(data)-8)
	}
	return DecodeRLEWidth(data[8:8+size], data[8+size:], t, lenBits, n)
}

// EncodeRLE run-length encodes values (little-endian words of t bits) with u8
// run lengths, splitting runs longer than MaxRunLength, and returns the two
// buffers of one RLE mini-block chunk. Lance's writer caps RLE chunks at 2048
// values and only picks RLE when the number of runs is below half the number
// of values; chunking is the caller's job.
func EncodeRLE(values []byte, t int) (runValues, runLengths []byte, err error) {
	return EncodeRLEWidth(values, t, 8)
}

// EncodeRLEWidth is EncodeRLE with run lengths of lenBits (8 or 16) bits.
func EncodeRLEWidth(values []byte, t, lenBits int) (runValues, runLengths []byte, err error) {
	maxRun, err := checkLenBits(lenBits)
	if err != nil {
		return nil, nil, err
	}
	n, err := checkValues("rle", values, t)
	if err != nil {
		return nil, nil, err
	}
	bw, lb := t/8, lenBits/8
	for i := 0; i < n; {
		v := values[i*bw : (i+1)*bw]
		j := i + 1
		for j < n && j-i < maxRun && string(values[j*bw:(j+1)*bw]) == string(v) {
			j++
		}
		runValues = append(runValues, v...)
		runLengths = append(runLengths, make([]byte, lb)...)
		putWord(runLengths, len(runLengths)/lb-1, lb, uint64(j-i))
		i = j
	}
	return runValues, runLengths, nil
}

// EncodeRLEBlock encodes values in the RLE block frame DecodeRLEBlock reads.
func EncodeRLEBlock(values []byte, t, lenBits int) ([]byte, error) {
	rv, rl, err := EncodeRLEWidth(values, t, lenBits)
	if err != nil {
		return nil, fmt.Errorf("rle block: %w", err)
	}
	out := binary.LittleEndian.AppendUint64(make([]byte, 0, 8+len(rv)+len(rl)), uint64(len(rv)))
	return append(append(out, rv...), rl...), nil
}

// CountRuns returns the number of runs of equal t-bit values in values
// (ignoring the 255 split), the statistic Lance uses to decide on RLE.
func CountRuns(values []byte, t int) (int, error) {
	n, err := checkValues("rle", values, t)
	if err != nil || n == 0 {
		return 0, err
	}
	bw := t / 8
	runs := 1
	for i := 1; i < n; i++ {
		if string(values[i*bw:(i+1)*bw]) != string(values[(i-1)*bw:i*bw]) {
			runs++
		}
	}
	return runs, nil
}

// fillRun fills out (a whole number of values) with copies of the value v: typed stores
// for 1-, 2-, 4- and 8-byte values, doubling copies otherwise.
func fillRun(out, v []byte) {
	switch len(v) {
	case 1:
		b := v[0]
		for i := range out {
			out[i] = b
		}
	case 2:
		x := binary.LittleEndian.Uint16(v)
		for i := 0; i+2 <= len(out); i += 2 {
			binary.LittleEndian.PutUint16(out[i:], x)
		}
	case 4:
		x := binary.LittleEndian.Uint32(v)
		for i := 0; i+4 <= len(out); i += 4 {
			binary.LittleEndian.PutUint32(out[i:], x)
		}
	case 8:
		x := binary.LittleEndian.Uint64(v)
		for i := 0; i+8 <= len(out); i += 8 {
			binary.LittleEndian.PutUint64(out[i:], x)
		}
	default:
		if len(out) == 0 {
			return
		}
		filled := copy(out, v)
		for filled < len(out) {
			filled += copy(out[filled:], out[:filled])
		}
	}
}

// fillRunsTyped expands all runs into out (n values of bw bytes) with typed stores when
// the run lengths are u8, the values 4 or 8 bytes and both values and out aligned for
// them (the common case: int64 keys and int32/date columns). It returns how many values
// it wrote (fewer than n when the runs run out: the caller reports that) and true, or
// false, writing nothing, when the case does not apply and the caller expands run by run.
func fillRunsTyped(out, values, lengths []byte, bw, lb, n int) (int, bool) {
	if lb != 1 {
		return 0, false
	}
	switch bw {
	case 4:
		return fillRunsWords[uint32](out, values, lengths, n)
	case 8:
		return fillRunsWords[uint64](out, values, lengths, n)
	}
	return 0, false
}

// fillRunsWords is fillRunsTyped for values of type W: one run value per u8 run length,
// runs expanded in order until n values are written.
func fillRunsWords[W word](out, values, lengths []byte, n int) (int, bool) {
	o, ok1 := wordsOf[W](out)
	v, ok2 := wordsOf[W](values)
	if !ok1 || !ok2 || len(o) < n {
		return 0, false
	}
	o = o[:n]
	lengths = lengths[:min(len(lengths), len(v))]
	pos := 0
	for r, l := range lengths {
		x := v[r]
		if l <= 8 && pos+8 <= n {
			// Short run (TPC-H keys repeat 1..7 times): eight stores without a loop, then
			// move by the run's length; later runs overwrite the surplus.
			s := (*[8]W)(o[pos : pos+8])
			s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7] = x, x, x, x, x, x, x, x
			pos += int(l)
			continue
		}
		end := min(n, pos+int(l))
		seg := o[pos:end]
		for i := range seg {
			seg[i] = x
		}
		pos = end
		if pos == n {
			break
		}
	}
	return pos, true
}
