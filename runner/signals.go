package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// interrupts gives the two contexts of a stoppable command: soft is
// cancelled by the first Ctrl-C (or SIGTERM), hard by the second; each
// says what it does on stderr. release stops listening.
func interrupts(first, second string) (soft, hard context.Context, release func()) {
	soft, stopSoft := context.WithCancel(context.Background())
	hard, stopHard := context.WithCancel(context.Background())
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sig
		fmt.Fprintln(os.Stderr, "\n"+first)
		stopSoft()
		<-sig
		fmt.Fprintln(os.Stderr, "\n"+second)
		stopHard()
	}()
	return soft, hard, func() {
		signal.Stop(sig)
		stopSoft()
		stopHard()
	}
}
