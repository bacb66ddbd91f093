#!/usr/bin/env bash
# The reference gateways' build contexts (gateways/reference/README.md):
#  go/context:     refgw-go, built from this checkout (Go's standard library
#                  only, static), FROM scratch;
#  python/context: app.py under uvicorn, Debian's python3.11 and a venv of
#                  python/requirements.txt (hash-pinned, PyPI), FROM scratch.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$here/go/build"
(cd "$here/go" && CGO_ENABLED=0 go build -trimpath -o "$here/go/build/refgw-go" .)
"$here/../debian-closure.sh" "$here/go/context" - "$here/go/build/refgw-go:/refgw-go"

"$here/../python-closure.sh" "$here/python/context" "$here/python/build" "$here/python/requirements.txt" refgw \
  /opt/refgw/bin/python -m uvicorn --app-dir /opt/refgw/app app:app
mkdir -p "$here/python/context/rootfs/opt/refgw/app"
cp "$here/python/app.py" "$here/python/context/rootfs/opt/refgw/app/"
