package encoding

import (
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/flightd/flightd/lanceformat/encoding/compress"
)

// zstdEncoders caches one zstd encoder per level: creating one per frame costs far more
// than compressing a mini-block chunk. EncodeAll is safe for concurrent use.
var zstdEncoders sync.Map // zstd.EncoderLevel -> *zstd.Encoder

// compressFrame applies Lance's General framing to src as compress.Compress does (zstd:
// u64 LE length then a zstd frame; lz4: u32 LE length then an LZ4 block), reusing zstd
// encoders. level 0 means zstd's default level (3).
func compressFrame(scheme compress.Scheme, level int, src []byte) ([]byte, error) {
	if scheme != compress.SchemeZstd {
		return compress.Compress(scheme, level, src)
	}
	if level == 0 {
		level = 3
	}
	el := zstd.EncoderLevelFromZstd(level)
	e, ok := zstdEncoders.Load(el)
	if !ok {
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(el), zstd.WithEncoderConcurrency(1))
		if err != nil {
			return nil, fmt.Errorf("zstd encoder: %w", err)
		}
		if e, ok = zstdEncoders.LoadOrStore(el, enc); ok {
			_ = enc.Close()
		}
	}
	out := binary.LittleEndian.AppendUint64(make([]byte, 0, 8+len(src)/2), uint64(len(src)))
	return e.(*zstd.Encoder).EncodeAll(src, out), nil
}
