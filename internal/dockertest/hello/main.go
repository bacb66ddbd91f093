// Command hello answers "ok" on the address it is given: the smallest server
// the Docker smoke test can put in a FROM scratch image. Given port 0, it
// binds a free port itself and says which ("listening on ADDR"), so no test
// has to pick one that another process might take first.
package main

import (
	"flag"
	"log"
	"net"
	"net/http"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	flag.Parse()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("listening on %s", ln.Addr())
	http.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	log.Fatal(http.Serve(ln, nil))
}
