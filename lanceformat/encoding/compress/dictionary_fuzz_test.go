package compress

import "testing"

// FuzzGather checks GatherVariable and GatherFixed with a fuzzed dictionary
// block and fuzzed indices.
func FuzzGather(f *testing.F) {
	blk, _ := EncodeVariableBlock(strs("red", "green"), 32)
	f.Add(blk, u32s(0, 1, 1), uint16(2), []byte{0xFF})
	f.Add(blk, u32s(0, 7), uint16(2), []byte{0x01})
	f.Fuzz(func(t *testing.T, dictBlk, idx []byte, items uint16, validity []byte) {
		n := len(idx) / 4
		if len(validity) < (n+7)/8 {
			validity = nil
		}
		if out, err := GatherFixed(idx, 32, n, dictBlk, 4, validity); err == nil && len(out) != 4*n {
			t.Fatalf("fixed gather returned %d bytes for %d values", len(out), n)
		}
		offs, data, err := DecodeVariableBlock(dictBlk, int(items))
		if err != nil {
			return
		}
		o, d, err := GatherVariable(idx, 32, n, offs, data, validity)
		if err != nil {
			return
		}
		if len(o) != n+1 || o[n] != uint64(len(d)) {
			t.Fatalf("bad gather shape")
		}
	})
}
