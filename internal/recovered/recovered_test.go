package recovered

import (
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// TestCatch: of goroutines that panic, the first panic is kept, with its
// value and stack, and none ends the process; without a panic, no error.
func TestCatch(t *testing.T) {
	var first atomic.Pointer[Panic]
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer Catch(&first)
			panic("a bug in a nil map")
		}()
	}
	wg.Wait()
	err := Err(&first)
	if err == nil || !strings.Contains(err.Error(), "nil map") || !strings.Contains(err.Error(), "recovered_test.go") {
		t.Errorf("err = %v, want the panic with its stack", err)
	}
	var none atomic.Pointer[Panic]
	func() { defer Catch(&none) }()
	if Err(&none) != nil {
		t.Error("an error with no panic")
	}
}
