"""TensorZero's embedded HTTP gateway (the Rust gateway core its Python
package carries), started as the package starts it for patch_openai_client,
serving until the container is stopped.

usage: serve.py CONFIG_FILE
"""

import os
import signal
import sys
from urllib.parse import urlsplit

import tensorzero

gateway = tensorzero._start_http_gateway(
    config_file=sys.argv[1],
    clickhouse_url=None,
    postgres_url=None,
    valkey_url=None,
    async_setup=False,
)
print(f"TensorZero's embedded gateway serves at {gateway.base_url}", flush=True)
port = os.environ.get("GATEWAYBENCH_BIND_PORT", "")
if port and urlsplit(gateway.base_url).port != int(port):
    sys.exit(f"it listens at {gateway.base_url}, not on port {port}: bind_port.so did not take (is it preloaded?)")
signal.sigwait({signal.SIGTERM, signal.SIGINT})
gateway.close()
