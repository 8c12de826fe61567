package encoding

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/lanceformat/encoding/compress"
)

// Mini-block RLE chunks of a fixed-width column decode straight into the builder
// (appendRLE) exactly as through the general path (DecodeFixed, then AppendFixed), after
// values already there, with and without a reserved arena; bad chunks fail alike and
// leave the builder unchanged.
func TestRLEIntoMatchesGeneral(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	types := []arrow.DataType{arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16,
		arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64}
	for iter := range 200 {
		typ := types[iter%4]
		bits := FixedBits(typ)
		w := bits / 8
		n := r.IntN(2048)
		vals := make([]byte, n*w)
		for i := 0; i < n; {
			run := 1 + r.IntN(300)
			v := byte(r.IntN(256))
			for j := i; j < min(n, i+run); j++ {
				for k := range w {
					vals[j*w+k] = v + byte(k)
				}
			}
			i += run
		}
		rv, rl, err := compress.EncodeRLE(vals, bits)
		require.NoError(t, err)
		corrupt := iter%5 == 4 && len(rl) > 0
		if corrupt {
			rl = rl[:len(rl)-1] // one run length missing
		}
		enc := rleChunks{v: &leafValues{bits: bits}}.encoding()
		name := fmt.Sprintf("iter %d %s n %d", iter, typ, n)
		for _, reserve := range []bool{false, true} {
			fast, err := NewBuilder(typ)
			require.NoError(t, err)
			if reserve {
				fast.Reserve(n + 3)
			}
			require.NoError(t, fast.AppendFixed(make([]byte, 3*w), 0, 3, nil))
			var vd valueDecoder
			err = vd.into(fast, enc, [][]byte{rv, rl}, n)
			raw, _, gerr := DecodeFixed(enc, [][]byte{rv, rl}, n)
			if corrupt {
				require.ErrorIs(t, gerr, compress.ErrCorrupt, name)
				require.EqualError(t, err, gerr.Error(), name)
				require.Equal(t, 3, fast.Len(), name)
				require.Len(t, fast.fixed, 3*w, name)
				continue
			}
			require.NoError(t, err, name)
			require.NoError(t, gerr, name)
			require.Equal(t, vals, raw, name)
			require.Equal(t, 3+n, fast.Len(), name)
			require.Equal(t, append(make([]byte, 3*w), vals...), fast.fixed, name)
		}
	}
}
