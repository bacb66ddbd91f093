#!/usr/bin/env bash
# The nginx image's build context: Debian's nginx and its library closure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
"$here/../debian-closure.sh" "$here/context" nginx-light /usr/sbin/nginx
mkdir -p "$here/context/rootfs/var/log/nginx" "$here/context/rootfs/var/lib/nginx"
