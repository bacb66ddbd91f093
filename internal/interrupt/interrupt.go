// Package interrupt gives a stoppable command its two contexts: the first
// Ctrl-C (or SIGTERM, or SIGHUP) stops what is running gently, the second at
// once.
// runner and the driver image's command share it.
package interrupt

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// Contexts returns soft, cancelled by the first signal, and hard, by the
// second; each says what it does on stderr (nothing when its text is
// empty). release stops listening.
func Contexts(first, second string) (soft, hard context.Context, release func()) {
	soft, stopSoft := context.WithCancel(context.Background())
	hard, stopHard := context.WithCancel(context.Background())
	sig := make(chan os.Signal, 2)
	// SIGHUP too: a closed terminal must tear down like Ctrl-C, not leave
	// containers and temporary files behind as the default (exit) did.
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	say := func(s string) {
		if s != "" {
			fmt.Fprintln(os.Stderr, "\n"+s)
		}
	}
	go func() {
		<-sig
		say(first)
		stopSoft()
		<-sig
		say(second)
		stopHard()
	}()
	return soft, hard, func() {
		signal.Stop(sig)
		stopSoft()
		stopHard()
	}
}
