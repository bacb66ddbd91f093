#!/usr/bin/env bash
# The new-api image's build context, from the Go module proxy, npm and Debian
# only (gateways/new-api/README.md):
#  1. new-api's source at one release, as the Go module proxy serves it
#     (go.sum's checksum database checks it), copied into build/;
#  2. its web UI, which the binary embeds (web/dist), built as its Dockerfile
#     does: bun from npm (bun/package-lock.json pins it by hash), the UI's
#     packages at the versions and hashes of web/bun.lock here (the release's
#     lock, eleven packages npm here refuses moved to the nearest release:
#     web/overrides.json; --frozen-lockfile), then `bun run build`;
#  3. the binary, as its Dockerfile builds it (CGO_ENABLED=0, its version
#     stamped), and its context FROM scratch;
#  4. a SQLite database seeded by running that binary once on loopback and
#     going through its first-run setup and admin API as its UI does: the root
#     user, a price for mock-model, the channel to the mock (priority 10) and
#     the one to the fallback mock (priority 0), RetryTimes=2, and a token
#     whose key is then set to sk-gatewaybench (benchmarks.hcl's api_key).
# Environment from the runner: MOCK_URL, MOCK_FALLBACK_URL, GATEWAY_PORT (free
# while this runs). build/ is kept: a second run reuses the UI and binary.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ctx="$here/context" build="$here/build"
: "${MOCK_URL:?MOCK_URL comes from benchmarks.hcl through the runner}" "${MOCK_FALLBACK_URL:?}" "${GATEWAY_PORT:?}"
version=v0.10.2 module=github.com/QuantumNous/new-api
for tool in go npm python3 curl; do
  command -v $tool >/dev/null || { echo "prepare: new-api $version needs $tool; none is on PATH" >&2; exit 1; }
done
mkdir -p "$build"

if [ ! -x "$build/new-api" ]; then
  dir=$(cd "$build" && go mod download -json "$module@$version" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get("Dir") or sys.exit("prepare: " + d.get("Error", "no source")))')
  rm -rf "$build/src"
  cp -r "$dir" "$build/src"
  chmod -R u+w "$build/src"
  cp "$here/bun/package.json" "$here/bun/package-lock.json" "$build/"
  (cd "$build" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  # The UI's packages: the release's web/bun.lock but for eleven that npm
  # here refuses (404), moved to the nearest release it serves
  # (web/overrides.json; web/bun.lock here is the lock that results).
  python3 -c 'import json, sys; p = json.load(open(sys.argv[1])); p["overrides"] = json.load(open(sys.argv[2])); json.dump(p, open(sys.argv[1], "w"), indent=2)' \
    "$build/src/web/package.json" "$here/web/overrides.json"
  cp "$here/web/bun.lock" "$build/src/web/bun.lock"
  (cd "$build/src/web" && "$build/node_modules/.bin/bun" install --frozen-lockfile >/dev/null &&
    DISABLE_ESLINT_PLUGIN=true VITE_REACT_APP_VERSION=$version "$build/node_modules/.bin/bun" run build >"$build/web-build.log" 2>&1) ||
    { tail -20 "$build/web-build.log" >&2; exit 1; }
  (cd "$build/src" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X '$module/common.Version=$version'" -o "$build/new-api.tmp" .)
  mv "$build/new-api.tmp" "$build/new-api"
fi

"$here/../debian-closure.sh" "$ctx" - "$build/new-api:/new-api"

# Seed the database with new-api itself, on loopback, then stop it.
mkdir -p "$ctx/rootfs/data" "$ctx/rootfs/tmp/logs"
db="$ctx/rootfs/data/new-api.db"
rm -f "$db"
base="http://127.0.0.1:$GATEWAY_PORT"
. "$here/../seed-server.sh"
seed_start "$build/seed.log" "$base/api/status" env SQLITE_PATH="$db" GIN_MODE=release \
  "$build/new-api" --port "$GATEWAY_PORT" --log-dir "$build/logs"
password=$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
jar="$build/cookies"
rm -f "$jar"
# call METHOD PATH BODY: one admin API call; fails unless it answers success
call() {
  local out
  out=$(curl -s -b "$jar" -c "$jar" -X "$1" "$base$2" -H 'Content-Type: application/json' \
    ${user:+-H "New-Api-User: $user"} -d "$3")
  case $out in
    *'"success":true'*) printf '%s' "$out" ;;
    *) echo "prepare: new-api refused $1 $2: $out" >&2; return 1 ;;
  esac
}
call POST /api/setup "{\"username\":\"gatewaybench\",\"password\":\"$password\",\"confirmPassword\":\"$password\",\"SelfUseModeEnabled\":false,\"DemoSiteEnabled\":false}" >/dev/null
user=$(call POST /api/user/login "{\"username\":\"gatewaybench\",\"password\":\"$password\"}" | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["id"])')
channel() { sed "s|\${MOCK_URL}|$MOCK_URL|; s|\${MOCK_FALLBACK_URL}|$MOCK_FALLBACK_URL|" "$here/../one-api/$1"; } # one-api's channels: new-api keeps its schema
call POST /api/channel/ "{\"mode\":\"single\",\"channel\":$(channel channel.json)}" >/dev/null
call POST /api/channel/ "{\"mode\":\"single\",\"channel\":$(channel channel-fallback.json)}" >/dev/null
call PUT /api/option/ '{"key":"RetryTimes","value":"2"}' >/dev/null
call PUT /api/option/ '{"key":"ModelRatio","value":"{\"mock-model\":1}"}' >/dev/null
call POST /api/token/ '{"name":"gatewaybench","remain_quota":0,"unlimited_quota":true,"expired_time":-1}' >/dev/null
seed_stop
# The token's key is random; benchmarks.hcl names it, so it is set here.
python3 - "$db" <<'EOF'
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
n = con.execute("UPDATE tokens SET key = 'gatewaybench' WHERE name = 'gatewaybench'").rowcount
con.commit()
sys.exit(0 if n == 1 else "prepare: the seeded token is not in new-api's database")
EOF
