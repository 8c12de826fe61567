package file

// The package's tests run with page buffer poisoning on: a buffer given back at the end
// of a read is overwritten with 0xDB and never reused, so a decoded array that still
// pointed into page bytes would differ from pylance's values instead of passing by luck.
func init() { poisonPages.Store(true) }

// SetPoisonPageBuffers turns page buffer poisoning on or off (benchmarks turn it off to
// measure pooling) and returns the previous setting.
func SetPoisonPageBuffers(on bool) bool { return poisonPages.Swap(on) }

// ForceChecksums turns on c's checksum mode (as FLIGHTD_POISON_FREED does) and returns c.
func (c *BlockCache) ForceChecksums() *BlockCache {
	c.checksum = true
	return c
}
