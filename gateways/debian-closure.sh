#!/usr/bin/env bash
# Usage: gateways/debian-closure.sh CONTEXT PACKAGE BINARY [FILE...]
#
# Assembles a FROM scratch build context from Debian's PACKAGE, with no image
# registry: BINARY and any further FILEs (copied with their paths, or to DEST
# when given as SRC:DEST), the shared
# libraries they load (ldd), minimal /etc/passwd and /etc/group, and a /tmp.
# The package is installed with apt-get when BINARY is missing (PACKAGE "-":
# BINARY was built here, nothing to install). The image's entrypoint is
# BINARY. Used by the `prepare` commands in benchmarks.hcl.
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 CONTEXT PACKAGE BINARY [FILE...]" >&2
  exit 2
fi
ctx=$1 pkg=$2 bin=${3%%:*} entry=${3#*:}
shift 2
if [ ! -x "$bin" ] && [ "$pkg" != - ]; then
  echo "prepare: installing Debian's $pkg for $bin" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq --no-install-recommends "$pkg" >/dev/null
fi
rm -rf "$ctx"
mkdir -p "$ctx/rootfs/etc" "$ctx/rootfs/tmp"
chmod 1777 "$ctx/rootfs/tmp"
for arg in "$@"; do
  f=${arg%%:*}
  if [ "$f" != "$arg" ]; then
    mkdir -p "$ctx/rootfs$(dirname "${arg#*:}")"
    cp -L "$f" "$ctx/rootfs${arg#*:}"
  else
    cp -L --parents "$f" "$ctx/rootfs"
  fi
  if [ -f "$f" ] && [ -x "$f" ]; then
    for lib in $(ldd "$f" 2>/dev/null | grep -o '/[^ ]*' || true); do
      cp -L --parents "$lib" "$ctx/rootfs"
    done
  fi
done
printf 'root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n' >"$ctx/rootfs/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$ctx/rootfs/etc/group"
printf 'FROM scratch\nCOPY rootfs/ /\nENTRYPOINT ["%s"]\n' "$entry" >"$ctx/Dockerfile"
