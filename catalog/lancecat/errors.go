package lancecat

import (
	"errors"
	"strings"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/lanceformat/file"
	"github.com/flightd/flightd/lanceformat/schema"
	"github.com/flightd/flightd/lanceformat/table"
)

// sentinel marks an error from the format layer with a catalog sentinel while keeping its
// message and its own chain.
type sentinel struct{ err, kind error }

func (e sentinel) Error() string   { return e.err.Error() }
func (e sentinel) Unwrap() []error { return []error{e.err, e.kind} }

// classify translates the format layer's errors that callers must tell apart (cannot read
// this yet, table exists, commit conflict) into the catalog's sentinels, so that callers above
// the catalog need not know lanceformat.
func classify(err error) error {
	if err == nil || errors.Is(err, catalog.ErrNotSupported) {
		return err
	}
	switch {
	case errors.Is(err, table.ErrDatasetExists):
		return sentinel{err, catalog.ErrTableExists}
	case errors.Is(err, table.ErrCommitConflict), errors.Is(err, table.ErrRetryableCommitConflict):
		return sentinel{err, catalog.ErrCommitConflict}
	}
	if errors.Is(err, schema.ErrNotSupported) || errors.Is(err, file.ErrNotSupported) ||
		errors.Is(err, table.ErrUnsupportedFeature) || strings.Contains(err.Error(), "not supported yet") {
		return sentinel{err, catalog.ErrNotSupported}
	}
	return err
}
