# Sourced by the prepare scripts that seed a gateway's database by running
# the gateway once on loopback and calling its own API, as its console would.

# seed_start LOG URL CMD...: starts CMD in the background, its output to LOG,
# and returns once URL answers; exits with LOG's tail if CMD dies first or
# URL is silent for 60 s. seed_stop ends it.
seed_start() {
  local log=$1 url=$2
  shift 2
  "$@" >"$log" 2>&1 &
  seed_pid=$!
  trap 'kill $seed_pid 2>/dev/null || true' EXIT
  for _ in $(seq 1 600); do
    curl -sf "$url" >/dev/null && return 0
    kill -0 $seed_pid 2>/dev/null || { tail -20 "$log" >&2; echo "prepare: the server seeding the database (log: $log) exited before $url answered" >&2; exit 1; }
    sleep 0.1
  done
  tail -20 "$log" >&2
  echo "prepare: $url did not answer within 60 s (log: $log)" >&2
  exit 1
}

seed_stop() {
  kill $seed_pid
  wait $seed_pid 2>/dev/null || true
  trap - EXIT
}
