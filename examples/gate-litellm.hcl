# The regression gate's validation on LiteLLM's proxy 1.106.12
# (results/gate/README.md, issue 62): its production service three times in
# the same randomized rounds: the baseline, an identical copy (A/A) and a
# copy with a planted slowdown of about 10% inside its process (a custom
# callback's pre-call hook doing a fixed CPU work per request:
# gateways/gate-plant/gate_plant.py). Each arm as benchmarks.hcl declares
# LiteLLM: the same key and warm-up.
#
#   go run ./runner apply examples/gate-litellm.hcl --results results/gate/litellm/runs/1
#   go run ./runner compare --baseline litellm --candidate litellm-copy results/gate/litellm/runs/1
#
# scripts/gate-validation.sh litellm N makes N runs and the tallies.
defaults {
  allow_host_paths = [".."]
  trials          = 2 # rounds per start, each arm once in a fresh random order
  warmup          = "250ms"
  # 1.5 s windows with the idle arms left running (frozen and thawed around
  # 0.5 s windows, Portkey's rounds scattered 0.14 (log sd) within a start,
  # 0.07 with 3 s windows, 0.036 unfrozen: results/gate/design/). Shorter
  # than Portkey's 3 s so that 8 starts of two arms fit in 10 minutes: the
  # 2 s pilot took 626 s (design/litellm-2arm-8x2-2s-500/); at about 90
  # requests a second LiteLLM still gives 130 samples a window.
  duration        = "1.5s"
  settle          = "200ms"
  min_samples     = 100
  max_duration    = "5s"
  isolation       = "none"
}

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

mock {
  port = 18080
}

gateway "litellm" {
  compose  = "../compose/gate-litellm.yaml"
  service  = "litellm"
  port     = 18187
  api      = ["openai"]
  api_key  = "sk-gatewaybench"
  version  = "LiteLLM proxy 1.106.12 (Python 3.11), the plant callback with no work"
  prepare  = ["../gateways/litellm/prepare.sh"]
  warmup_requests = 300 # its blocks are flat after ~300 (docs/method.md); the at-load warm-up judges the rest
  warmup_max      = "120s"
}

gateway "litellm-copy" {
  compose  = "../compose/gate-litellm.yaml"
  service  = "litellm-copy"
  port     = 18188
  api      = ["openai"]
  api_key  = "sk-gatewaybench"
  version  = "the same image and settings as litellm (A/A)"
  prepare  = ["../gateways/litellm/prepare.sh"]
  warmup_requests = 300 # its blocks are flat after ~300 (docs/method.md); the at-load warm-up judges the rest
  warmup_max      = "120s"
}

gateway "litellm-10" {
  compose  = "../compose/gate-litellm.yaml"
  service  = "litellm-10"
  port     = 18189
  api      = ["openai"]
  api_key  = "sk-gatewaybench"
  version  = "litellm with the plant callback doing 18,000 rounds of work per request (sized to about 10% of what it adds: 11,000 gave 4.7-6.5%)"
  prepare  = ["../gateways/litellm/prepare.sh"]
  warmup_requests = 300 # its blocks are flat after ~300 (docs/method.md); the at-load warm-up judges the rest
  warmup_max      = "120s"
}

# 8 fresh starts of the three arms (the gate's interval is over starts,
# each a new process of every build: 4 starts gave a verdict in 5 runs of
# 10, design/litellm-4x2-3s-1500/), two rounds in each, one client, whole
# JSON answers from a mock that answers at once.
scenario "gate" {
  kind        = "overhead"
  starts      = 8
  api         = "openai"
  concurrency = [1]
  mock {
    ttft = "0s"
    itl  = "0s"
  }
}
