// Command crash exits at start with a message, like a gateway with a bad config.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "crash: configuration file not found")
	os.Exit(3)
}
