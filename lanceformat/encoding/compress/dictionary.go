package compress

// Dictionary gathering.
//
// How a 2.1/2.2 mini-block page with a dictionary (MiniBlockLayout.dictionary
// set) is decoded by the page decoder:
//
//  1. Decode page buffer 2 (the dictionary) once per page as a *block* with
//     MiniBlockLayout.dictionary: for strings a Variable block
//     (DecodeVariableBlock with n = num_dictionary_items), for fixed-width
//     values a Flat(bits) (DecodeFlat). Observed with pylance 14: 2.2 also
//     dictionary-encodes 64-bit integers (Flat(64) dictionary) and wraps even
//     small dictionary blocks in General{LZ4} (Decompress the whole block,
//     then decode the inner encoding); indices there were RLE-encoded i32.
//  2. Decode each chunk's values with value_compression as usual; they are the
//     indices (i32 for dictionaries Lance builds, the Arrow key width for
//     Arrow dictionary input), 0-based.
//  3. Build validity from the def levels, then call GatherFixed or
//     GatherVariable with the indices and that validity (or materialize an
//     Arrow DictionaryArray from indices + dictionary if the schema asks for
//     a dictionary type).
//
// Indices are read as unsigned little-endian words; a negative signed index
// is therefore out of range and reported as corrupt. Null slots (validity
// bit 0) are not range-checked and produce zero bytes / empty values.

// MaxGatherBytes caps the bytes GatherVariable will materialize.
const MaxGatherBytes = 1 << 30

// bitIsSet reports bit i of an LSB-first bitmap; a nil bitmap is all ones.
func bitIsSet(bitmap []byte, i int) bool {
	return bitmap == nil || bitmap[i/8]&(1<<(uint(i)%8)) != 0
}

func checkGatherArgs(what string, indices []byte, indexBits, n int, validity []byte) error {
	if err := checkWordBits(what, indexBits); err != nil {
		return err
	}
	if err := checkCount(what, n); err != nil {
		return err
	}
	if n > len(indices)/(indexBits/8) {
		return corruptf("%s: %d indices of %d bits need %d bytes, have %d", what, n, indexBits, n*indexBits/8, len(indices))
	}
	if validity != nil && len(validity) < (n+7)/8 {
		return corruptf("%s: validity has %d bytes for %d values", what, len(validity), n)
	}
	return nil
}

// GatherFixed returns dict[idx[i]] for i in [0,n) where dict holds
// fixed-width values of valueBytes bytes each, idx holds n indices of
// indexBits (8, 16, 32 or 64) bits and validity is an optional LSB-first
// bitmap (nil = all valid). The result has n*valueBytes bytes; null slots are
// zero.
func GatherFixed(indices []byte, indexBits int, n int, dict []byte, valueBytes int, validity []byte) ([]byte, error) {
	const what = "dictionary gather"
	if err := checkGatherArgs(what, indices, indexBits, n, validity); err != nil {
		return nil, err
	}
	if valueBytes <= 0 {
		return nil, corruptf("%s: value width %d bytes", what, valueBytes)
	}
	entries := uint64(len(dict) / valueBytes)
	if n > 0 && entries == 0 && validity == nil {
		return nil, corruptf("%s: %d indices into an empty dictionary", what, n)
	}
	out := make([]byte, n*valueBytes)
	ib := indexBits / 8
	for i := range n {
		if !bitIsSet(validity, i) {
			continue
		}
		k := getWord(indices, i, ib)
		if k >= entries {
			return nil, corruptf("%s: index %d at position %d outside dictionary of %d", what, k, i, entries)
		}
		copy(out[i*valueBytes:(i+1)*valueBytes], dict[k*uint64(valueBytes):])
	}
	return out, nil
}

// GatherVariable returns the variable-width values dict[idx[i]] for i in
// [0,n) as offsets (n+1, from 0) and bytes, where the dictionary is given by
// dictOffsets (entries+1 non-decreasing offsets into dictData, as returned by
// DecodeVariableBlock). Indices and validity are as for GatherFixed; null
// slots become empty values.
func GatherVariable(indices []byte, indexBits int, n int, dictOffsets []uint64, dictData []byte, validity []byte) ([]uint64, []byte, error) {
	const what = "dictionary gather"
	if err := checkGatherArgs(what, indices, indexBits, n, validity); err != nil {
		return nil, nil, err
	}
	if len(dictOffsets) == 0 {
		return nil, nil, corruptf("%s: dictionary has no offsets", what)
	}
	entries := uint64(len(dictOffsets) - 1)
	ib := indexBits / 8
	total := uint64(0)
	for i := range n {
		if !bitIsSet(validity, i) {
			continue
		}
		k := getWord(indices, i, ib)
		if k >= entries {
			return nil, nil, corruptf("%s: index %d at position %d outside dictionary of %d", what, k, i, entries)
		}
		s, e := dictOffsets[k], dictOffsets[k+1]
		if s > e || e > uint64(len(dictData)) {
			return nil, nil, corruptf("%s: dictionary entry %d range [%d,%d) outside %d bytes", what, k, s, e, len(dictData))
		}
		total += e - s
		if total > MaxGatherBytes {
			return nil, nil, corruptf("%s: gathered values exceed %d bytes", what, uint64(MaxGatherBytes))
		}
	}
	offs := make([]uint64, n+1)
	data := make([]byte, 0, total)
	for i := range n {
		if bitIsSet(validity, i) {
			k := getWord(indices, i, ib)
			data = append(data, dictData[dictOffsets[k]:dictOffsets[k+1]]...)
		}
		offs[i+1] = uint64(len(data))
	}
	return offs, data, nil
}
