// Package blobstoretest is the acceptance suite every lanceio.ObjectStore implementation
// must pass. Implementations call Run from their own tests.
package blobstoretest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/lanceformat/lanceio"
)

// Run checks store against the lanceio.ObjectStore contract. The store should be empty; the
// suite only writes under the prefix "blobstoretest/".
func Run(t *testing.T, store lanceio.ObjectStore) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(ctx context.Context, t *testing.T, s lanceio.ObjectStore, root string)
	}{
		{"PutReadSize", testPutReadSize},
		{"ReadRangeBounds", testReadRangeBounds},
		{"NotFound", testNotFound},
		{"PutReplaces", testPutReplaces},
		{"PutIfAbsent", testPutIfAbsent},
		{"PutIfAbsentRace", testPutIfAbsentRace},
		{"ListSortedRecursive", testList},
		{"Delete", testDelete},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.fn(context.Background(), t, store, "blobstoretest/"+tc.name+"/")
		})
	}
}

func testPutReadSize(ctx context.Context, t *testing.T, s lanceio.ObjectStore, root string) {
	data := []byte("hello, lance")
	p := root + "a/b/c.bin"
	require.NoError(t, s.Put(ctx, p, data))
	n, err := s.Size(ctx, p)
	require.NoError(t, err)
	require.Equal(t, int64(len(data)), n)
	got, err := s.ReadRange(ctx, p, 0, n)
	require.NoError(t, err)
	require.Equal(t, data, got)

	empty := root + "empty"
	require.NoError(t, s.Put(ctx, empty, nil))
	n, err = s.Size(ctx, empty)
	require.NoError(t, err)
	require.Zero(t, n)
	got, err = s.ReadRange(ctx, empty, 0, 0)
	require.NoError(t, err)
	require.Empty(t, got)
}

// testReadRangeBounds checks ranged reads at the edges of an object, through ReadRange and,
// for stores that have it, lanceio.RangeIntoReader's ReadRangeInto (into a buffer holding
// stale bytes). Data files (.lance) are read too: stores may keep their handles open.
func testReadRangeBounds(ctx context.Context, t *testing.T, s lanceio.ObjectStore, root string) {
	cases := []struct {
		off, n  int64
		want    string
		wantErr bool
	}{
		{0, 10, "0123456789", false},
		{3, 4, "3456", false},
		{9, 1, "9", false},
		{10, 0, "", false},
		{5, 0, "", false},
		{8, 3, "", true},
		{10, 1, "", true},
		{20, 1, "", true},
		{-1, 2, "", true},
	}
	into, hasInto := s.(lanceio.RangeIntoReader)
	for _, name := range []string{"digits", "digits.lance"} {
		p := root + name
		require.NoError(t, s.Put(ctx, p, []byte("0123456789")))
		for _, c := range cases {
			got, err := s.ReadRange(ctx, p, c.off, c.n)
			if c.wantErr {
				require.Error(t, err, "%s off %d n %d", name, c.off, c.n)
			} else {
				require.NoError(t, err, "%s off %d n %d", name, c.off, c.n)
				require.Equal(t, c.want, string(got), "%s off %d n %d", name, c.off, c.n)
			}
			if !hasInto || c.n < 0 {
				continue
			}
			buf := bytes.Repeat([]byte{'x'}, int(c.n))
			err = into.ReadRangeInto(ctx, p, c.off, buf)
			if c.wantErr {
				require.Error(t, err, "into: %s off %d n %d", name, c.off, c.n)
				continue
			}
			require.NoError(t, err, "into: %s off %d n %d", name, c.off, c.n)
			require.Equal(t, c.want, string(buf), "into: %s off %d n %d", name, c.off, c.n)
		}
		if hasInto {
			require.ErrorIs(t, into.ReadRangeInto(ctx, root+"missing"+name, 0, make([]byte, 1)), lanceio.ErrNotFound)
		}
	}
}

func testNotFound(ctx context.Context, t *testing.T, s lanceio.ObjectStore, root string) {
	p := root + "missing"
	_, err := s.ReadRange(ctx, p, 0, 1)
	require.ErrorIs(t, err, lanceio.ErrNotFound)
	_, err = s.Size(ctx, p)
	require.ErrorIs(t, err, lanceio.ErrNotFound)
	require.ErrorIs(t, s.Delete(ctx, p), lanceio.ErrNotFound)
	infos, err := s.List(ctx, root+"nothing/")
	require.NoError(t, err)
	require.Empty(t, infos)
}

func testPutReplaces(ctx context.Context, t *testing.T, s lanceio.ObjectStore, root string) {
	p := root + "obj"
	require.NoError(t, s.Put(ctx, p, []byte("first version")))
	require.NoError(t, s.Put(ctx, p, []byte("second")))
	got, err := s.ReadRange(ctx, p, 0, 6)
	require.NoError(t, err)
	require.Equal(t, "second", string(got))
	n, err := s.Size(ctx, p)
	require.NoError(t, err)
	require.Equal(t, int64(6), n)
	infos, err := s.List(ctx, root)
	require.NoError(t, err)
	require.Len(t, infos, 1, "no temporary files may be listed")
}

func testPutIfAbsent(ctx context.Context, t *testing.T, s lanceio.ObjectStore, root string) {
	p := root + "_versions/1.manifest"
	require.NoError(t, s.PutIfAbsent(ctx, p, []byte("winner")))
	err := s.PutIfAbsent(ctx, p, []byte("loser!"))
	require.ErrorIs(t, err, lanceio.ErrAlreadyExists)
	got, err := s.ReadRange(ctx, p, 0, 6)
	require.NoError(t, err)
	require.Equal(t, "winner", string(got))
	infos, err := s.List(ctx, root+"_versions/")
	require.NoError(t, err)
	require.Len(t, infos, 1, "no temporary or sidecar files may be listed")
	require.Equal(t, p, infos[0].Path)
}

func testPutIfAbsentRace(ctx context.Context, t *testing.T, s lanceio.ObjectStore, root string) {
	const writers = 16
	p := root + "_versions/2.manifest"
	var wins atomic.Int32
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := s.PutIfAbsent(ctx, p, fmt.Appendf(nil, "writer %02d", i))
			if err == nil {
				wins.Add(1)
				return
			}
			if !errors.Is(err, lanceio.ErrAlreadyExists) {
				errs[i] = err
			}
		}()
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
	require.Equal(t, int32(1), wins.Load())
	got, err := s.ReadRange(ctx, p, 0, 9)
	require.NoError(t, err)
	require.True(t, bytes.HasPrefix(got, []byte("writer ")), "got %q", got)
	infos, err := s.List(ctx, root)
	require.NoError(t, err)
	require.Len(t, infos, 1)
}

func testList(ctx context.Context, t *testing.T, s lanceio.ObjectStore, root string) {
	paths := []string{"z", "a/2", "a/10", "a/1/x", "ab", "b/c/d/e"}
	for i, p := range paths {
		require.NoError(t, s.Put(ctx, root+p, bytes.Repeat([]byte{'x'}, i+1)))
	}
	cases := []struct {
		prefix string
		want   []string
	}{
		{"", []string{"a/1/x", "a/10", "a/2", "ab", "b/c/d/e", "z"}},
		{"a/", []string{"a/1/x", "a/10", "a/2"}},
		{"a", []string{"a/1/x", "a/10", "a/2", "ab"}},
		{"a/1", []string{"a/1/x", "a/10"}},
		{"b/", []string{"b/c/d/e"}},
		{"c/", nil},
		{"z/", nil},    // a file, not a directory
		{"ab/c/", nil}, // below a file
		{"a/1/x", []string{"a/1/x"}},
	}
	for _, c := range cases {
		infos, err := s.List(ctx, root+c.prefix)
		require.NoError(t, err)
		var got []string
		for _, in := range infos {
			got = append(got, in.Path[len(root):])
		}
		require.Equal(t, c.want, got, "prefix %q", c.prefix)
		testListFirst(ctx, t, s, root+c.prefix, infos)
	}
	infos, err := s.List(ctx, root+"b/")
	require.NoError(t, err)
	require.Equal(t, int64(6), infos[0].Size)
	require.False(t, infos[0].ModTime.IsZero())
}

// testListFirst checks that a lanceio.FirstLister's ListFirst(prefix, n) returns the first n
// objects of List's answer all, with the same sizes.
func testListFirst(ctx context.Context, t *testing.T, s lanceio.ObjectStore, prefix string, all []lanceio.ObjectInfo) {
	fl, ok := s.(lanceio.FirstLister)
	if !ok {
		return
	}
	for _, n := range []int{1, 2, 3, len(all), len(all) + 5} {
		if n == 0 {
			continue
		}
		got, err := fl.ListFirst(ctx, prefix, n)
		require.NoError(t, err)
		want := all[:min(n, len(all))]
		require.Len(t, got, len(want), "ListFirst(%q, %d)", prefix, n)
		for i := range want {
			require.Equal(t, want[i].Path, got[i].Path, "ListFirst(%q, %d)", prefix, n)
			require.Equal(t, want[i].Size, got[i].Size, "ListFirst(%q, %d) %s", prefix, n, want[i].Path)
		}
	}
	_, err := fl.ListFirst(ctx, prefix, 0)
	require.Error(t, err, "ListFirst with n = 0")
}

func testDelete(ctx context.Context, t *testing.T, s lanceio.ObjectStore, root string) {
	p := root + "gone"
	require.NoError(t, s.Put(ctx, p, []byte("x")))
	require.NoError(t, s.Delete(ctx, p))
	_, err := s.Size(ctx, p)
	require.ErrorIs(t, err, lanceio.ErrNotFound)
	require.NoError(t, s.PutIfAbsent(ctx, p, []byte("again")), "a deleted path can be created again")
}
