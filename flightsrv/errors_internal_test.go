package flightsrv

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

func TestStatusMessagesAreBounded(t *testing.T) {
	long := strings.Repeat("invalid: ", 100000) + "é"
	st := statusOf(errors.New(long))
	require.LessOrEqual(t, len(st.Message()), maxMessage+64)
	require.Contains(t, st.Message(), "more bytes")
	require.True(t, utf8.ValidString(st.Message()))
	require.Equal(t, "short", statusOf(errors.New("short")).Message())
}
