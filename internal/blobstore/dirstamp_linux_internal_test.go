package blobstore

import (
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDirStampOnlyOnStampedFileSystems: a directory on a file system whose directory times
// are not trusted (procfs here, as a FUSE or network mount would be) gets no stamp, so its
// listings are always read.
func TestDirStampOnlyOnStampedFileSystems(t *testing.T) {
	var st syscall.Stat_t
	require.NoError(t, syscall.Stat("/proc", &st))
	require.False(t, localFileSystem("/proc", st.Dev))
	_, ok := dirStampOf("/proc")
	require.False(t, ok)
	var fs syscall.Statfs_t
	dir := t.TempDir()
	require.NoError(t, syscall.Statfs(dir, &fs))
	_, ok = dirStampOf(dir)
	require.Equal(t, stampedFileSystems[int64(fs.Type)], ok, "file system type %#x", fs.Type)
}
