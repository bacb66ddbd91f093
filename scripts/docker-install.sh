#!/usr/bin/env bash
# Install what the Docker integration tests need from Debian when it is
# missing (a fresh machine): docker.io, and valgrind for the counts of
# instructions under Cachegrind (runner work); nothing else:
# scripts/docker-up.sh starts the engine. scripts/test.sh runs this in the
# background while the Go code compiles, since on a fresh machine it is
# mostly downloads.
set -euo pipefail
need=()
command -v dockerd >/dev/null 2>&1 || need+=(docker.io)
[ -x /usr/libexec/valgrind/cachegrind-amd64-linux ] || need+=(valgrind)
[ ${#need[@]} -eq 0 ] && exit 0
echo "docker-install: installing Debian's ${need[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${need[@]}" >/dev/null
