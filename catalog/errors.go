package catalog

import (
	"errors"

	"github.com/flightd/flightd/internal/dberr"
)

// LoadError classifies a failure to load table name at version at as the error a SQL user
// sees (DuckDB's wording): a missing table or version is a Catalog error; an error that is
// already classified stays as it is; anything else is an IO error. The cause stays in the
// chain, so errors.Is still finds the sentinels.
func LoadError(name string, at VersionRef, err error) error {
	switch {
	case errors.Is(err, ErrNoSuchTable):
		return dberr.Wrap(dberr.Catalog, err, "Table with name %s does not exist!", name)
	case errors.Is(err, ErrNoSuchVersion):
		return dberr.Wrap(dberr.Catalog, err, "table %s has no %s", name, at)
	case errors.As(err, new(*dberr.Error)):
		return err
	}
	return dberr.Wrap(dberr.IO, err, "load table %s at %s", name, at)
}
