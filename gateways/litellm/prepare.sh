#!/usr/bin/env bash
# The LiteLLM image's build context, from PyPI and Debian only
# (gateways/python-closure.sh): Debian's python3.11 and a venv at
# /opt/litellm holding litellm[proxy] installed from requirements.txt with
# --require-hashes, FROM scratch. The image runs the venv's interpreter; the
# compose files add the offline settings (README.md).
#
# prepare.sh [RELEASE_DIR]: the release whose requirements.txt to install,
# and where its context/ and build/ go (default: this directory, 1.106.12;
# 1.97.0/ holds the control release).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rel=$(cd "${1:-$here}" && pwd)
exec "$here/../python-closure.sh" "$rel/context" "$rel/build" "$rel/requirements.txt" litellm \
  /opt/litellm/bin/python -m litellm.proxy.proxy_cli
