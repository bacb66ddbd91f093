#!/usr/bin/env bash
# The MLflow image's build context, from PyPI and Debian only
# (gateways/python-closure.sh): Debian's python3.11 and a venv at /opt/mlflow
# holding mlflow[genai] installed from requirements.txt with --require-hashes,
# FROM scratch, and its SQLite backend store seeded by running the same
# MLflow once on loopback: seed.py creates, through the server's REST API as
# its UI does, the OpenAI secrets and model definitions for the mock
# (primary) and the fallback mock, and the endpoint `mock-model`. A container
# starts from that file and needs no manual step.
# Environment from the runner: MOCK_URL, MOCK_FALLBACK_URL, GATEWAY_PORT (free
# while this runs).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ctx="$here/context" build="$here/build"
: "${MOCK_URL:?MOCK_URL comes from benchmarks.hcl through the runner}" "${MOCK_FALLBACK_URL:?}" "${GATEWAY_PORT:?}"
"$here/../python-closure.sh" "$ctx" "$build" "$here/requirements.txt" mlflow \
  /opt/mlflow/bin/python -m mlflow server

# server.env's settings, baked into the image (ENV) and set for the seed, so
# the secrets the container decrypts are the ones sealed here.
grep -E '^[A-Z_]+=' "$here/server.env" | sed 's/^/ENV /' >>"$ctx/Dockerfile"
set -a
# shellcheck source=gateways/mlflow/server.env
. "$here/server.env"
set +a
db="$ctx/rootfs/data/mlflow.db"
mkdir -p "$(dirname "$db")"
rm -f "$db"
base="http://127.0.0.1:$GATEWAY_PORT"
. "$here/../seed-server.sh"
seed_start "$build/seed.log" "$base/health" "$build/venv/bin/python" -m mlflow server --backend-store-uri "sqlite:///$db" \
  --host 127.0.0.1 --port "$GATEWAY_PORT" --workers 1
"$build/venv/bin/python" "$here/seed.py" "$base" "$MOCK_URL" "$MOCK_FALLBACK_URL" >>"$build/seed.log" 2>&1 ||
  { tail -20 "$build/seed.log" >&2; echo "prepare: MLflow refused the gateway's seed" >&2; exit 1; }
seed_stop
