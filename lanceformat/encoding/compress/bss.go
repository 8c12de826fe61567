package compress

// checkBSSWidth validates a byte-stream-split value width (32 or 64 bits).
func checkBSSWidth(t int) error {
	if t != 32 && t != 64 {
		return corruptf("byte stream split: value width %d bits, want 32 or 64", t)
	}
	return nil
}

// DecodeByteStreamSplit decodes a ByteStreamSplit chunk (CompressiveEncoding
// variant 9, values Flat(32|64)) of n values of t bits: byte j of value i is
// stored at data[j*n+i]. data must hold at least n*t/8 bytes (extra bytes are
// ignored). The result is the n values, little-endian. Lance writes chunks of
// 1024 (f32) or 512 (f64) values, usually wrapped in General compression.
func DecodeByteStreamSplit(data []byte, t int, n int) ([]byte, error) {
	if err := checkBSSWidth(t); err != nil {
		return nil, err
	}
	if err := checkCount("byte stream split", n); err != nil {
		return nil, err
	}
	bw := t / 8
	if n > len(data)/bw {
		return nil, corruptf("byte stream split: %d values of %d bits need %d bytes, have %d", n, t, n*bw, len(data))
	}
	out := make([]byte, n*bw)
	for j := range bw {
		stream := data[j*n : (j+1)*n]
		for i, b := range stream {
			out[i*bw+j] = b
		}
	}
	return out, nil
}

// EncodeByteStreamSplit encodes values (little-endian words of t = 32 or 64
// bits) as one byte-stream-split chunk: byte j of value i goes to j*n+i.
func EncodeByteStreamSplit(values []byte, t int) ([]byte, error) {
	if err := checkBSSWidth(t); err != nil {
		return nil, err
	}
	n, err := checkValues("byte stream split", values, t)
	if err != nil {
		return nil, err
	}
	bw := t / 8
	out := make([]byte, len(values))
	for i := range n {
		for j := range bw {
			out[j*n+i] = values[i*bw+j]
		}
	}
	return out, nil
}
