#!/usr/bin/env bash
# The TensorZero image's build context, from PyPI and Debian only
# (gateways/python-closure.sh): Debian's python3.11 and a venv at
# /opt/tensorzero holding the tensorzero package (its wheel carries the Rust
# gateway core) from requirements.txt with --require-hashes, FROM scratch;
# serve.py, which starts its embedded HTTP gateway; and bind_port.so, built
# here with the host's C compiler, which makes that gateway listen on the
# plan's port (README.md).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ctx="$here/context"
"$here/../python-closure.sh" "$ctx" "$here/build" "$here/requirements.txt" tensorzero \
  /opt/tensorzero/bin/python /opt/gatewaybench/serve.py
mkdir -p "$ctx/rootfs/opt/gatewaybench"
cp "$here/serve.py" "$ctx/rootfs/opt/gatewaybench/serve.py"
# Its HTTP client will not build without a root certificate store ("Failed
# to build HTTP client: builder error"), though the mock is plain HTTP:
# Debian's (ca-certificates), as a Debian image has it.
mkdir -p "$ctx/rootfs/etc/ssl/certs"
cp -L /etc/ssl/certs/ca-certificates.crt "$ctx/rootfs/etc/ssl/certs/ca-certificates.crt"
if ! command -v cc >/dev/null; then
  echo "prepare: TensorZero's bind_port.so needs a C compiler (Debian: apt-get install gcc)" >&2
  exit 1
fi
cc -O2 -Wall -Werror -shared -fPIC -o "$ctx/rootfs/opt/gatewaybench/bind_port.so" "$here/bind_port.c"
