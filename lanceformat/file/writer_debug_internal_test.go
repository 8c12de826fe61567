package file

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/encoding/prototext"

	"github.com/flightd/flightd/lanceformat/lanceio"
)

// osReadStore reads a local directory; only ReadRange and Size work.
type osReadStore struct{ root string }

func (s osReadStore) ReadRange(_ context.Context, p string, off, n int64) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(s.root, p))
	if err != nil {
		return nil, err
	}
	if off+n > int64(len(b)) {
		return nil, fmt.Errorf("read %s past the end", p)
	}
	return b[off : off+n], nil
}

func (s osReadStore) Size(_ context.Context, p string) (int64, error) {
	st, err := os.Stat(filepath.Join(s.root, p))
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

func (osReadStore) List(context.Context, string) ([]lanceio.ObjectInfo, error) { return nil, nil }
func (osReadStore) Put(context.Context, string, []byte) error                  { return nil }
func (osReadStore) PutIfAbsent(context.Context, string, []byte) error          { return nil }
func (osReadStore) Delete(context.Context, string) error                       { return nil }

// TestWriterDumpPages prints the page layouts of the file named by LANCE_DUMP (a debugging
// aid for comparing this writer's output with pylance's; skipped unless the variable is set).
func TestWriterDumpPages(t *testing.T) {
	p := os.Getenv("LANCE_DUMP")
	if p == "" {
		t.Skip("set LANCE_DUMP=/path/to/file.lance to dump its pages")
	}
	r, err := Open(context.Background(), osReadStore{filepath.Dir(p)}, filepath.Base(p))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("version", r.Version(), "rows", r.NumRows())
	for ci, c := range r.columns {
		for pi, pg := range c.pages {
			fmt.Printf("col %d page %d len %d bufs %v\n", ci, pi, pg.length, pg.bufs)
			if pg.enc20 != nil {
				fmt.Println("  ", prototext.Format(pg.enc20))
			} else {
				fmt.Println("  ", prototext.Format(pg.enc21))
			}
		}
	}
}
