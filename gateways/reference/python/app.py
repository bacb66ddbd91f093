"""The Python reference gateway of the regression gate's validation
(results/gate/README.md): an ASGI app served by uvicorn that passes each
request to the upstream with httpx, as LiteLLM's proxy does, after a fixed
amount of CPU work in pure Python (REFGW_WORK rounds). Declared twice with
the same work it is an A/A pair; with 5% or 10% more, a planted slowdown
that slows with the host's speed for an interpreter, as real code does.
Not a gateway to measure for itself.
"""

import os

import httpx

UPSTREAM = os.environ["REFGW_UPSTREAM"].rstrip("/")
WORK = int(os.environ.get("REFGW_WORK", "0"))
_sink = [1]

# Hop-by-hop and framing headers are the server's and the client's own.
_SKIP = {b"host", b"content-length", b"transfer-encoding", b"connection", b"keep-alive"}

_client = httpx.AsyncClient(
    base_url=UPSTREAM,
    timeout=httpx.Timeout(60.0),
    limits=httpx.Limits(max_connections=1024, max_keepalive_connections=1024),
)


def work(n):
    # A 32-bit linear congruential step: a fixed cost per round in CPython.
    x = _sink[0]
    for _ in range(n):
        x = (x * 1103515245 + 12345) & 0xFFFFFFFF
    _sink[0] = x


async def _body(receive):
    chunks = []
    while True:
        msg = await receive()
        chunks.append(msg.get("body", b""))
        if not msg.get("more_body"):
            return b"".join(chunks)


async def app(scope, receive, send):
    if scope["type"] != "http":
        return
    work(WORK)
    body = await _body(receive)
    headers = [(k, v) for k, v in scope["headers"] if k not in _SKIP]
    path = scope["path"] + ("?" + scope["query_string"].decode() if scope["query_string"] else "")
    req = _client.build_request(scope["method"], path, headers=headers, content=body)
    resp = await _client.send(req, stream=True)
    try:
        out = [(k.encode(), v.encode()) for k, v in resp.headers.items() if k.encode() not in _SKIP]
        await send({"type": "http.response.start", "status": resp.status_code, "headers": out})
        async for chunk in resp.aiter_raw():
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})
    finally:
        await resp.aclose()
