package lancecat

import (
	"errors"
	"strings"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/lanceformat/file"
	"github.com/flightd/flightd/lanceformat/schema"
	"github.com/flightd/flightd/lanceformat/table"
)

// notSupported marks an error from the format layer as catalog.ErrNotSupported while keeping
// its message and its own chain.
type notSupported struct{ err error }

func (e notSupported) Error() string   { return e.err.Error() }
func (e notSupported) Unwrap() []error { return []error{e.err, catalog.ErrNotSupported} }

// classify translates the format layer's "cannot read this yet" errors into the catalog's
// sentinel, so that callers above the catalog can tell them from corrupt or missing data
// without knowing lanceformat.
func classify(err error) error {
	if err == nil || errors.Is(err, catalog.ErrNotSupported) {
		return err
	}
	if errors.Is(err, schema.ErrNotSupported) || errors.Is(err, file.ErrNotSupported) ||
		errors.Is(err, table.ErrUnsupportedFeature) || strings.Contains(err.Error(), "not supported yet") {
		return notSupported{err}
	}
	return err
}
