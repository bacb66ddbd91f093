#!/usr/bin/env bash
# The one-api image's build context, from the Go module proxy and Debian only:
#  1. one-api v0.6.10 built from its published module (cgo, for SQLite) in a
#     throw-away module under build/ (never committed, nothing patched);
#  2. the tokenizer files one-api loads at start, from the Go module
#     github.com/pkoukk/tiktoken-go-loader, named as tiktoken-go looks them up
#     in TIKTOKEN_CACHE_DIR, so it starts with no network;
#  3. two SQLite databases, default.db and tuned.db, seeded by running the
#     built one-api once on loopback: the root token sk-gatewaybench
#     (INITIAL_ROOT_TOKEN), the channel in channel.json pointing at the mock
#     (MOCK_URL, from benchmarks.hcl, priority 10) and the one in
#     channel-fallback.json pointing at the fallback mock (MOCK_FALLBACK_URL,
#     priority 0), RetryTimes=2 (one-api's first retry draws from the highest
#     priority again and skips the channel that failed; the second draws from
#     the others), and for tuned.db the consumption log turned off. A container
#     starts from these files and needs no manual step.
# Environment from the runner: MOCK_URL, MOCK_FALLBACK_URL, GATEWAY_PORT (free
# while this runs).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ctx="$here/context" build="$here/build"
: "${MOCK_URL:?MOCK_URL comes from benchmarks.hcl through the runner}" "${MOCK_FALLBACK_URL:?}" "${GATEWAY_PORT:?}"
version=v0.6.10 loader=v0.0.2

mkdir -p "$build"
cd "$build"
if [ ! -f go.mod ]; then
  go mod init gatewaybench.local/one-api-build >/dev/null 2>&1
fi
GOFLAGS=-mod=mod go get "github.com/songquanpeng/one-api@$version" "github.com/pkoukk/tiktoken-go-loader@$loader" >/dev/null 2>&1
CGO_ENABLED=1 go build -trimpath -o "$build/one-api" github.com/songquanpeng/one-api

"$here/../debian-closure.sh" "$ctx" - "$build/one-api:/one-api"

# Tokenizer files under the names tiktoken-go gives them: the SHA-1 of the URL
# it would fetch (the URLs are read from the tiktoken-go module itself).
tk=$(go list -m -f '{{.Dir}}' github.com/pkoukk/tiktoken-go)
assets=$(go list -m -f '{{.Dir}}' github.com/pkoukk/tiktoken-go-loader)/assets
mkdir -p "$ctx/rootfs/tiktoken"
for url in $(grep -rhoE 'https://[^"]+\.tiktoken' "$tk"/*.go | sort -u); do
  f="$assets/$(basename "$url")"
  [ -f "$f" ] && cp "$f" "$ctx/rootfs/tiktoken/$(printf '%s' "$url" | sha1sum | cut -d' ' -f1)"
done

# Seed the databases with one-api itself, on loopback, then stop it.
mkdir -p "$ctx/rootfs/data" "$ctx/rootfs/tmp/logs"
. "$here/../seed-server.sh"
admin=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
channel=$(sed "s|\${MOCK_URL}|$MOCK_URL|" "$here/channel.json")
fallback=$(sed "s|\${MOCK_FALLBACK_URL}|$MOCK_FALLBACK_URL|" "$here/channel-fallback.json")
seed() { # seed DB [option=value...]
  local db=$1
  shift
  rm -f "$db"
  local base="http://127.0.0.1:$GATEWAY_PORT"
  seed_start "$build/seed.log" "$base/api/status" env SQLITE_PATH="$db" INITIAL_ROOT_TOKEN=gatewaybench \
    INITIAL_ROOT_ACCESS_TOKEN="$admin" TIKTOKEN_CACHE_DIR="$ctx/rootfs/tiktoken" GIN_MODE=release \
    "$build/one-api" --port "$GATEWAY_PORT" --log-dir "$build/logs"
  api() { curl -sf -X "$1" "$base$2" -H "Authorization: $admin" -H 'Content-Type: application/json' -d "$3" | grep -q '"success":true'; }
  api POST /api/channel/ "$channel" || { echo "prepare: one-api refused the channel" >&2; exit 1; }
  api POST /api/channel/ "$fallback" || { echo "prepare: one-api refused the fallback channel" >&2; exit 1; }
  for kv in "$@"; do
    api PUT /api/option/ "{\"key\":\"${kv%%=*}\",\"value\":\"${kv#*=}\"}" || { echo "prepare: one-api refused option $kv" >&2; exit 1; }
  done
  seed_stop
}
seed "$ctx/rootfs/data/default.db" RetryTimes=2
seed "$ctx/rootfs/data/tuned.db" RetryTimes=2 LogConsumeEnabled=false
