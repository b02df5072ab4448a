//go:build windows

package host

import "golang.org/x/sys/windows"

// lockRange is the whole file, as far as a lock can reach.
const lockRange = ^uint32(0)

// tryLock takes an exclusive lock on the open file fd without waiting;
// false with no error means another handle holds it.
func tryLock(fd uintptr) (bool, error) {
	err := windows.LockFileEx(windows.Handle(fd), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY,
		0, lockRange, lockRange, new(windows.Overlapped))
	switch err {
	case nil:
		return true, nil
	case windows.ERROR_LOCK_VIOLATION:
		return false, nil
	default:
		return false, err
	}
}

// unlockFile releases tryLock's lock.
func unlockFile(fd uintptr) error {
	return windows.UnlockFileEx(windows.Handle(fd), 0, lockRange, lockRange, new(windows.Overlapped))
}
