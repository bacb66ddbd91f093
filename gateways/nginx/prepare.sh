#!/usr/bin/env bash
# Assemble a FROM scratch build context for Debian's nginx: the binary, its
# shared-library closure and the few /etc files it reads. No registry needed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ctx="$here/context"
bin=/usr/sbin/nginx
if [ ! -x "$bin" ]; then
  echo "nginx is not installed on this host: apt-get install nginx-light" >&2
  exit 1
fi
rm -rf "$ctx"
mkdir -p "$ctx/rootfs/etc" "$ctx/rootfs/tmp" "$ctx/rootfs/var/log/nginx" "$ctx/rootfs/var/lib/nginx"
cp -L --parents "$bin" "$ctx/rootfs"
for lib in $(ldd "$bin" | grep -o '/[^ ]*'); do
  cp -L --parents "$lib" "$ctx/rootfs"
done
printf 'root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n' >"$ctx/rootfs/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$ctx/rootfs/etc/group"
printf 'FROM scratch\nCOPY rootfs/ /\nENTRYPOINT ["/usr/sbin/nginx"]\n' >"$ctx/Dockerfile"
