package pack

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// each calls f(i) for every i below n, on up to GOMAXPROCS goroutines.
// A pack's files are read, decoded and parsed independently of each
// other, and a one-shot render spends most of its time doing that; the
// callers keep each result at its index and merge them in order, so the
// outcome does not depend on the schedule. A panic in f is raised again
// in the caller, as if f had run there.
func each(n int, f func(i int)) {
	var (
		next     atomic.Int64
		wg       sync.WaitGroup
		panicked atomic.Pointer[any]
	)
	for range min(n, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			defer func() {
				if r := recover(); r != nil {
					panicked.CompareAndSwap(nil, &r)
				}
			}()
			for i := int(next.Add(1) - 1); i < n && panicked.Load() == nil; i = int(next.Add(1) - 1) {
				f(i)
			}
		})
	}
	wg.Wait()
	if r := panicked.Load(); r != nil {
		panic(*r)
	}
}
