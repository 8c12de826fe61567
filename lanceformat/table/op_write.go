package table

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/lanceformat/file"
	"github.com/flightd/flightd/lanceformat/internal/lancepb"
	"github.com/flightd/flightd/lanceformat/schema"
)

// DefaultMaxRowsPerFile is pylance's default max_rows_per_file: one fragment (one data
// file) per this many rows.
const DefaultMaxRowsPerFile = 1 << 20

const dataDir = "data/"

// WriteOptions tunes how data files are written. The zero value is valid.
type WriteOptions struct {
	// MaxRowsPerFile caps the rows of one data file, hence of one new fragment.
	MaxRowsPerFile int
	// Allocator is used by the file writer (default memory.DefaultAllocator).
	Allocator memory.Allocator
}

// FileVersion maps a manifest data_format version to the file writer's version. Legacy
// (0.1) and newer datasets are refused: not supported yet.
func FileVersion(dataFormat string) (file.Version, error) {
	switch dataFormat {
	case "2.0":
		return file.V2_0, nil
	case "2.1":
		return file.V2_1, nil
	case "2.2":
		return file.V2_2, nil
	}
	return 0, fmt.Errorf("data storage version %q: %w (not supported yet: writing it)", dataFormat, ErrUnsupportedFeature)
}

// checkBatch verifies that rec's columns are sc's top-level fields, in order, by name and
// type.
func checkBatch(sc *schema.Schema, rec arrow.RecordBatch) error {
	if int(rec.NumCols()) != len(sc.Fields) {
		return fmt.Errorf("%w: batch has %d columns, table has %d", ErrInvalidWrite, rec.NumCols(), len(sc.Fields))
	}
	for i, f := range sc.Fields {
		af := rec.Schema().Field(i)
		if af.Name != f.Name || !arrow.TypeEqual(af.Type, f.Type) {
			return fmt.Errorf("%w: column %d is %q %s, table has %q %s", ErrInvalidWrite, i, af.Name, af.Type, f.Name, f.Type)
		}
		if !f.Nullable && rec.Column(i).NullN() > 0 {
			return fmt.Errorf("%w: column %q is not nullable but has %d nulls", ErrInvalidWrite, f.Name, rec.Column(i).NullN())
		}
	}
	return nil
}

// WriteFragments writes batches (whose columns must be sc's top-level fields; sc carries
// the dataset's field ids) as new data files in format v, one file per new fragment of at
// most MaxRowsPerFile rows. The fragments have id 0 (unassigned): committing them as an
// append or overwrite assigns ids. Nothing is visible until a commit refers to the files.
func (d *Dataset) WriteFragments(ctx context.Context, sc *schema.Schema, v file.Version,
	batches []arrow.RecordBatch, opts *WriteOptions) ([]*lancepb.DataFragment, error) {
	maxRows := int64(DefaultMaxRowsPerFile)
	var wopts []file.WriterOption
	if opts != nil {
		if opts.MaxRowsPerFile > 0 {
			maxRows = int64(opts.MaxRowsPerFile)
		}
		if opts.Allocator != nil {
			wopts = append(wopts, file.WithAllocator(opts.Allocator))
		}
	}
	fw := &fragmentWriter{d: d, sc: sc, v: v, opts: wopts}
	defer fw.abort(ctx)
	for _, rec := range batches {
		if err := checkBatch(sc, rec); err != nil {
			return nil, fmt.Errorf("%s: write: %w", d.describe(), err)
		}
		for off := int64(0); off < rec.NumRows(); {
			take := min(rec.NumRows()-off, maxRows-fw.rows)
			if err := fw.write(ctx, rec.NewSlice(off, off+take)); err != nil {
				return nil, err
			}
			off += take
			if fw.rows == maxRows {
				if err := fw.close(ctx); err != nil {
					return nil, err
				}
			}
		}
	}
	if err := fw.close(ctx); err != nil {
		return nil, err
	}
	return fw.frags, nil
}

// fragmentWriter writes one data file at a time.
type fragmentWriter struct {
	d     *Dataset
	sc    *schema.Schema
	v     file.Version
	opts  []file.WriterOption
	w     *file.Writer
	name  string
	rows  int64
	frags []*lancepb.DataFragment
}

func (fw *fragmentWriter) write(ctx context.Context, part arrow.RecordBatch) error {
	defer part.Release()
	if fw.w == nil {
		fw.name = newDataFileName()
		w, err := file.NewWriter(ctx, fw.d.store, fw.d.Path(dataDir+fw.name), fw.sc, fw.v, fw.opts...)
		if err != nil {
			return fmt.Errorf("%s: write data file: %w", fw.d.describe(), err)
		}
		fw.w, fw.rows = w, 0
	}
	if err := fw.w.Write(ctx, part); err != nil {
		return fmt.Errorf("%s: write data file %s: %w", fw.d.describe(), fw.name, err)
	}
	fw.rows += part.NumRows()
	return nil
}

func (fw *fragmentWriter) close(ctx context.Context) error {
	if fw.w == nil {
		return nil
	}
	w := fw.w
	fw.w = nil
	info, err := w.Close(ctx)
	if err != nil {
		return fmt.Errorf("%s: write data file %s: %w", fw.d.describe(), fw.name, err)
	}
	fw.frags = append(fw.frags, &lancepb.DataFragment{
		Files:        []*lancepb.DataFile{dataFileOf(fw.name, info)},
		PhysicalRows: info.NumRows,
	})
	return nil
}

// abort releases a half-written file's buffers after an error (the file itself, if any,
// is unreferenced and left for cleanup).
func (fw *fragmentWriter) abort(ctx context.Context) {
	if fw.w != nil {
		_, _ = fw.w.Close(ctx)
		fw.w = nil
	}
}

// dataFileOf is the manifest DataFile of a written file named name (relative to data/).
func dataFileOf(name string, info file.FileInfo) *lancepb.DataFile {
	return &lancepb.DataFile{
		Path: name, Fields: info.Fields, ColumnIndices: info.ColumnIndices,
		FileMajorVersion: info.Major, FileMinorVersion: info.Minor, FileSizeBytes: info.Size,
	}
}

// checkFileVersions verifies that every data file of frags has the dataset's data format.
func checkFileVersions(frags []*lancepb.DataFragment, dataFormat string) error {
	for _, f := range frags {
		for _, df := range f.GetFiles() {
			got := fmt.Sprintf("%d.%d", df.GetFileMajorVersion(), df.GetFileMinorVersion())
			if df.GetFileMajorVersion() == 0 && df.GetFileMinorVersion() == 3 {
				got = "2.0"
			}
			if got != dataFormat {
				return fmt.Errorf("%w: data file %s is format %s, the dataset is %s", ErrInvalidWrite, df.GetPath(), got, dataFormat)
			}
		}
	}
	return nil
}
