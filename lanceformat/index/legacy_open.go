package index

import (
	"context"
	"fmt"
	"slices"

	"github.com/flightd/flightd/lanceformat/file/legacy"
	"github.com/flightd/flightd/lanceformat/lanceio"
)

// legacyFiles are the index files that Lance wrote in the legacy v1 file format and that
// this package reads: the BTree's (Lance ≤ 0.20). Their schema is embedded in the file.
var legacyFiles = []string{btreeLookupFile, btreeDataFile}

// openLegacyFile opens the v1 index file at p (named name in its segment directory).
func openLegacyFile(ctx context.Context, store lanceio.ObjectStore, p, name string) (indexFile, error) {
	if !slices.Contains(legacyFiles, name) {
		return nil, fmt.Errorf("open %s: %w", p, notSupported("%s in the legacy v1 Lance file format (only BTree files are read in it)", name))
	}
	r, err := legacy.OpenSelfDescribed(ctx, store, p)
	if err != nil {
		return nil, wrapFileErr(err)
	}
	return r, nil
}
