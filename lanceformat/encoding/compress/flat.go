package compress

// DecodeFlat returns the first ceil(n*bitsPerValue/8) bytes of data: the
// Flat encoding (CompressiveEncoding variant 1) stores n values of
// bitsPerValue bits back to back, little-endian, bit-packed LSB-first when
// bitsPerValue < 8 (booleans). The result aliases data (no copy). Any
// BufferCompression on the Flat must be undone first (see Decompress).
func DecodeFlat(data []byte, bitsPerValue uint64, n int) ([]byte, error) {
	if err := checkCount("flat", n); err != nil {
		return nil, err
	}
	if bitsPerValue == 0 || bitsPerValue > 1<<24 {
		return nil, corruptf("flat: bits per value %d out of range", bitsPerValue)
	}
	// n fits in int and bitsPerValue < 2^24, so the product fits in uint64.
	need := (uint64(n)*bitsPerValue + 7) / 8
	if need > uint64(len(data)) {
		return nil, corruptf("flat: %d values of %d bits need %d bytes, have %d", n, bitsPerValue, need, len(data))
	}
	return data[:need], nil
}
