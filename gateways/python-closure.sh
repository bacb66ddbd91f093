#!/usr/bin/env bash
# Usage: gateways/python-closure.sh CONTEXT BUILD REQUIREMENTS NAME ENTRY...
#
# A FROM scratch build context for a Python program, from PyPI and Debian
# only: Debian's python3.11 with its standard library and library closure,
# and a virtual environment at /opt/NAME holding REQUIREMENTS installed with
# --require-hashes --no-deps (every package pinned by hash, nothing resolved
# at build time). The venv is kept in BUILD and made again only when
# REQUIREMENTS changes. The image's entrypoint is ENTRY... (the venv's
# interpreter is /opt/NAME/bin/python). Used by the gateways' prepare.sh.
set -euo pipefail
if [ $# -lt 5 ]; then
  echo "usage: $0 CONTEXT BUILD REQUIREMENTS NAME ENTRY..." >&2
  exit 2
fi
ctx=$1 build=$2 req=$3 name=$4 py=/usr/bin/python3.11
shift 4
export DEBIAN_FRONTEND=noninteractive
if [ ! -x "$py" ] || ! "$py" -c 'import ensurepip, venv' 2>/dev/null; then
  echo "prepare: installing Debian's python3.11 and python3.11-venv" >&2
  apt-get update -qq && apt-get install -y -qq --no-install-recommends python3.11 python3.11-venv >/dev/null
fi

sum=$(sha256sum "$req" | cut -d' ' -f1)
venv="$build/venv"
if [ "$(cat "$build/venv.sum" 2>/dev/null)" != "$sum" ]; then
  rm -rf "$venv" "$build/venv.sum"
  mkdir -p "$build"
  "$py" -m venv "$venv"
  # --no-deps with --require-hashes: exactly the listed files, or an error.
  "$venv/bin/pip" install --quiet --disable-pip-version-check --no-cache-dir \
    --require-hashes --no-deps -r "$req"
  echo "$sum" >"$build/venv.sum"
fi

"$(dirname "$0")/debian-closure.sh" "$ctx" python3.11 "$py"
root="$ctx/rootfs"
# The standard library (tests, IDLE and Tk left out: nothing imports them).
mkdir -p "$root/usr/lib"
cp -a /usr/lib/python3.11 "$root/usr/lib/"
# Debian links sitecustomize.py to /etc/python3.11 (an apport hook): in the
# image, where a context's links stay links, it would dangle.
rm -f "$root/usr/lib/python3.11/sitecustomize.py"
rm -rf "$root/usr/lib/python3.11/"{test,idlelib,tkinter,turtledemo,lib2to3/tests} "$root/usr/lib/python3.11/config-"*
# The venv at /opt/NAME: Python finds pyvenv.cfg beside its executable's
# directory, so the venv's python is the interpreter with the venv's packages.
mkdir -p "$root/opt/$name"
cp -a "$venv/lib" "$venv/pyvenv.cfg" "$root/opt/$name/"
mkdir -p "$root/opt/$name/bin"
ln -s /usr/bin/python3.11 "$root/opt/$name/bin/python"
rm -rf "$root/opt/$name/lib/python3.11/site-packages/"{pip,pip-*.dist-info,setuptools,setuptools-*.dist-info,_distutils_hack,distutils-precedence.pth}
# Every shared library the extension modules load that their wheels do not
# bundle (ldd resolves bundled ones inside the tree: those are left alone).
# Named *.so or *.so.N: '*.so*' also matched pyarrow's test data
# (v0.7.1.some-named-index.parquet), on which ldd fails the pipeline.
find "$root/opt/$name" "$root/usr/lib/python3.11/lib-dynload" -type f \( -name '*.so' -o -name '*.so.*' \) -print0 |
  xargs -0 ldd 2>/dev/null | grep -o '=> /[^ ]*' | cut -c4- | sort -u | while read -r lib; do
    case "$lib" in "$root"/*) continue ;; esac
    [ -e "$root$lib" ] || cp -L --parents "$lib" "$root"
  done
entry=$(printf '"%s", ' "$@")
cat >"$ctx/Dockerfile" <<DOCKERFILE
FROM scratch
COPY rootfs/ /
ENV HOME=/tmp PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /tmp
ENTRYPOINT [${entry%, }]
DOCKERFILE
