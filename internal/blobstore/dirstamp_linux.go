package blobstore

import "syscall"

// dirStampOf stats the directory at local path dir; ok=false if it cannot be stamped (it
// is missing, not a directory, or stat failed).
func dirStampOf(dir string) (dirStamp, bool) {
	var st syscall.Stat_t
	if err := syscall.Stat(dir, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
		return dirStamp{}, false
	}
	return dirStamp{dev: st.Dev, ino: st.Ino, mtimeNS: st.Mtim.Nano(), ctimeNS: st.Ctim.Nano()}, true
}
