// Command oom allocates and touches memory until the cgroup's limit kills it.
package main

import "time"

func main() {
	var hold [][]byte
	for {
		b := make([]byte, 16<<20)
		for i := range b {
			b[i] = 1
		}
		hold = append(hold, b)
		time.Sleep(10 * time.Millisecond)
	}
}
