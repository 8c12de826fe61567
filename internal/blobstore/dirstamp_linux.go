package blobstore

import (
	"sync"
	"syscall"
)

// dirStampOf stats the directory at local path dir; ok=false if it cannot be stamped (it
// is missing, not a directory, stat failed, or it is on a file system whose directory
// times are not known to change with every entry).
func dirStampOf(dir string) (dirStamp, bool) {
	var st syscall.Stat_t
	if err := syscall.Stat(dir, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
		return dirStamp{}, false
	}
	if !localFileSystem(dir, st.Dev) {
		return dirStamp{}, false
	}
	return dirStamp{dev: st.Dev, ino: st.Ino, mtimeNS: st.Mtim.Nano(), ctimeNS: st.Ctim.Nano()}, true
}

// stampedFileSystems are the file systems (statfs magic numbers) that update a directory's
// modification and change times whenever an entry is created, removed or renamed: ext2/3/4,
// XFS, Btrfs, tmpfs, ramfs, overlayfs, ZFS and F2FS. FUSE mounts of object stores (which
// often report fixed directory times) and network file systems (attribute caches, clock skew
// between client and server) are not among them, so their listings are always read.
var stampedFileSystems = map[int64]bool{
	0xEF53: true, 0x58465342: true, 0x9123683E: true, 0x01021994: true, 0x858458F6: true,
	0x794C7630: true, 0x2FC12FC1: true, 0xF2F52010: true,
}

// fsByDevice remembers, per device, whether it holds a stamped file system.
var fsByDevice sync.Map // uint64 → bool

// localFileSystem reports whether dir (on device dev) is on a stamped file system.
func localFileSystem(dir string, dev uint64) bool {
	if v, ok := fsByDevice.Load(dev); ok {
		return v.(bool)
	}
	var fs syscall.Statfs_t
	ok := syscall.Statfs(dir, &fs) == nil && stampedFileSystems[int64(fs.Type)]
	fsByDevice.Store(dev, ok)
	return ok
}
