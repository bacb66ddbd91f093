#!/usr/bin/env bash
# The Portkey image's build context, from the npm registry and Debian only:
# Node.js (the host's, or Debian's nodejs when missing) with its library
# closure, and @portkey-ai/gateway installed from package.json and its lock
# (the @hono/node-server override included) by `npm ci`. Portkey's code is
# used as published; loopback.cjs only gives listen() a host.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ctx="$here/context"
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "prepare: installing Debian's nodejs and npm" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
fi
node=$(readlink -f "$(command -v node)")
"$here/../debian-closure.sh" "$ctx" nodejs "$node"
if [ "$node" != /usr/bin/node ]; then # the compose command runs /usr/bin/node
  mkdir -p "$ctx/rootfs/usr/bin"
  cp "$ctx/rootfs$node" "$ctx/rootfs/usr/bin/node"
fi
app="$ctx/rootfs/app"
mkdir -p "$app"
cp "$here/package.json" "$here/package-lock.json" "$here/loopback.cjs" "$app/"
# --ignore-scripts: the package's only install script is patch-package, and
# the published package ships no patches.
(cd "$app" && npm ci --omit=dev --no-audit --no-fund --ignore-scripts --loglevel=error)
printf 'FROM scratch\nCOPY rootfs/ /\nWORKDIR /app\nENTRYPOINT ["/usr/bin/node"]\n' >"$ctx/Dockerfile"
