package table

// Reader feature flags (lance.table.Manifest.reader_feature_flags).
const (
	// FlagDeletionFiles: some fragment has a deletion file.
	FlagDeletionFiles uint64 = 1
	// FlagStableRowIDs: fragments carry row-id sequences.
	FlagStableRowIDs uint64 = 2
	// FlagUseV2Format is deprecated and ignored.
	FlagUseV2Format uint64 = 4
	// FlagTableConfig: the table has config (a writer flag; harmless to readers).
	FlagTableConfig uint64 = 8
	// FlagBasePaths: files may live under other base paths (read and write: yes).
	FlagBasePaths uint64 = 16
	// FlagDisableTransactionFile: no .txn files are written (a writer flag).
	FlagDisableTransactionFile uint64 = 32
)

// supportedReaderFlags are the reader flags this package can honour.
const supportedReaderFlags = FlagDeletionFiles | FlagStableRowIDs | FlagUseV2Format |
	FlagTableConfig | FlagBasePaths | FlagDisableTransactionFile

// CheckReaderFeatures returns an *UnsupportedFeatureError if m needs a reader feature this
// package does not implement (any unknown bit).
func CheckReaderFeatures(m *Manifest) error {
	if bad := m.Proto.GetReaderFeatureFlags() &^ supportedReaderFlags; bad != 0 {
		return &UnsupportedFeatureError{Path: m.Path, Version: m.Version(), Flags: bad}
	}
	return nil
}
