// Caddy 2.11 as its project builds it: the standard modules and the command,
// pinned by this folder's go.mod and go.sum (gateways/caddy/README.md).
package main

import (
	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	_ "github.com/caddyserver/caddy/v2/modules/standard"
)

func main() { caddycmd.Main() }
