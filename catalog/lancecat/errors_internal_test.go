package lancecat

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/lanceformat/file"
	"github.com/flightd/flightd/lanceformat/schema"
	"github.com/flightd/flightd/lanceformat/table"
)

func TestClassifyNotSupported(t *testing.T) {
	for _, err := range []error{
		fmt.Errorf("field x: %w: dictionary fields", schema.ErrNotSupported),
		fmt.Errorf("read: %w", file.ErrNotSupported),
		fmt.Errorf("open: %w", table.ErrUnsupportedFeature),
		errors.New("data file with base_id: not supported yet: base paths"),
	} {
		got := classify(err)
		require.ErrorIs(t, got, catalog.ErrNotSupported, "%v", err)
		require.ErrorIs(t, got, err)
		require.Equal(t, err.Error(), got.Error())
	}
	corrupt := fmt.Errorf("read: %w", file.ErrCorruptFile)
	require.NotErrorIs(t, classify(corrupt), catalog.ErrNotSupported)
	require.NoError(t, classify(nil))
}
