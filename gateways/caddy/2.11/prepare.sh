#!/usr/bin/env bash
# Caddy 2.11.9's build context: built from the Go module proxy with the
# module versions pinned in this folder's go.mod and go.sum (static, no cgo),
# packed FROM scratch like Debian's 2.6.2 (gateways/caddy/README.md).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
(cd "$here" && CGO_ENABLED=0 go build -mod=readonly -trimpath -o "$here/build/caddy" .)
"$here/../../debian-closure.sh" "$here/context" - "$here/build/caddy:/usr/bin/caddy"
