package table_test

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if pyDir != "" {
		_ = os.RemoveAll(pyDir)
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			println("goleak: " + err.Error())
			code = 1
		}
	}
	os.Exit(code)
}
