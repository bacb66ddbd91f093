// Package recovered turns a panic in a goroutine into an error for the
// code that waits on it. A panic in any goroutine ends the process without
// running the main goroutine's deferred calls, so a bug hit while a run's
// load or sampling goroutines are out would leave its containers behind;
// caught and returned, it fails the run, which then tears down.
package recovered

import (
	"fmt"
	"runtime/debug"
	"sync/atomic"
)

// Panic is a caught panic: its value and the stack it was raised on.
type Panic struct {
	Value any
	Stack []byte
}

func (p *Panic) Error() string {
	return fmt.Sprintf("internal error (a bug; please report it with this stack): panic: %v\n%s", p.Value, p.Stack)
}

// Catch records the first panic of the goroutine it is deferred in
// (`defer recovered.Catch(&first)`) and lets the goroutine end normally.
func Catch(first *atomic.Pointer[Panic]) {
	if v := recover(); v != nil {
		first.CompareAndSwap(nil, &Panic{Value: v, Stack: debug.Stack()})
	}
}

// Err is the first panic caught, as an error, or nil.
func Err(first *atomic.Pointer[Panic]) error {
	if p := first.Load(); p != nil {
		return p
	}
	return nil
}
