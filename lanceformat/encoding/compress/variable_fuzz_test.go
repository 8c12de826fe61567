package compress

import (
	"slices"
	"testing"
)

func checkVariableResult(t *testing.T, offs []uint64, data []byte, n int) {
	t.Helper()
	if len(offs) != n+1 || offs[0] != 0 || offs[n] != uint64(len(data)) {
		t.Fatalf("bad result shape: %d offsets for %d values, last %d, %d bytes", len(offs), n, offs[len(offs)-1], len(data))
	}
	if !slices.IsSorted(offs) {
		t.Fatalf("offsets not sorted")
	}
}

// FuzzVariableMiniBlock checks DecodeVariableMiniBlock on arbitrary input and
// that re-encoding a successful result decodes to the same values.
func FuzzVariableMiniBlock(f *testing.F) {
	enc, _ := EncodeVariableMiniBlock(strs("ab", "", "cde"), 32)
	f.Add(enc, true, uint16(3))
	enc, _ = EncodeVariableMiniBlock(strs("x"), 64)
	f.Add(enc, false, uint16(1))
	f.Fuzz(func(t *testing.T, buf []byte, w32 bool, n uint16) {
		bits := 64
		if w32 {
			bits = 32
		}
		offs, data, err := DecodeVariableMiniBlock(buf, bits, int(n))
		if err != nil {
			return
		}
		checkVariableResult(t, offs, data, int(n))
		vals := split(offs, data)
		re, err := EncodeVariableMiniBlock(vals, bits)
		if err != nil {
			t.Fatal(err)
		}
		o2, d2, err := DecodeVariableMiniBlock(re, bits, int(n))
		if err != nil || !slices.Equal(o2, offs) || string(d2) != string(data) {
			t.Fatalf("round trip failed: %v", err)
		}
	})
}

// FuzzVariableBlock checks DecodeVariableBlock on arbitrary input.
func FuzzVariableBlock(f *testing.F) {
	enc, _ := EncodeVariableBlock(strs("red", "green"), 32)
	f.Add(enc, uint16(2))
	enc, _ = EncodeVariableBlock(strs("a", "", "b"), 64)
	f.Add(enc, uint16(3))
	old := append([]byte{32, 1, 0, 0, 0, 17, 0, 0, 0}, u32s(0, 1)...)
	f.Add(append(old, 'z'), uint16(1))
	f.Fuzz(func(t *testing.T, buf []byte, n uint16) {
		offs, data, err := DecodeVariableBlock(buf, int(n))
		if err != nil {
			return
		}
		checkVariableResult(t, offs, data, int(n))
	})
}
