package file

import "testing"

func FuzzColumnMetadata(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte, v uint8, size uint32) {
		c, err := parseColumn(b, Version(1+int(v)%3), uint64(size))
		if err != nil {
			return
		}
		if c.computeStarts() != nil {
			return
		}
		for row := uint64(0); row < 4; row++ {
			_ = c.pageFor(row)
		}
	})
}
