//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd || windows)

package host

// Without a file lock a FileStore's own mutex is all the exclusion
// there is: stores in other processes may each win a signature.

func tryLock(uintptr) (bool, error) { return true, nil }

func unlockFile(uintptr) error { return nil }
