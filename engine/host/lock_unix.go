//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package host

import "syscall"

// tryLock takes an exclusive advisory lock on the open file fd without
// waiting; false with no error means another open file holds it.
func tryLock(fd uintptr) (bool, error) {
	switch err := syscall.Flock(int(fd), syscall.LOCK_EX|syscall.LOCK_NB); err {
	case nil:
		return true, nil
	case syscall.EWOULDBLOCK, syscall.EINTR:
		return false, nil
	default:
		return false, err
	}
}

// unlockFile releases tryLock's lock; closing fd would too.
func unlockFile(fd uintptr) error {
	return syscall.Flock(int(fd), syscall.LOCK_UN)
}
