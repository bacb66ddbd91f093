# The regression gate's validation on Portkey 1.15.2 (results/gate/README.md,
# issue 62): its production service three times in the same randomized
# rounds: the baseline, an identical copy (A/A) and a copy with a planted
# slowdown of about 10% inside its process (a preload doing a fixed CPU
# work per request: gateways/gate-plant/plant.cjs). Each arm as
# benchmarks.hcl declares Portkey: the same headers and warm-up.
#
#   go run ./runner apply examples/gate-portkey.hcl --results results/gate/portkey/runs/1
#   go run ./runner compare --baseline portkey --candidate portkey-copy results/gate/portkey/runs/1
#
# scripts/gate-validation.sh portkey N makes N runs and the tallies.
defaults {
  allow_host_paths = [".."]
  # rounds per start, each arm once in a fresh random order: 3, since
  # apart from a stray process a start's ratio scatters only as its rounds
  # do (0.047 a round, 0.031 a start of 2: results/gate/design/portkey-8x2-c1/),
  # and a round (about 24 s) costs less than a start (about 42 s more)
  trials          = 3
  warmup          = "250ms"
  # 3 s windows with the idle arms left running: frozen and thawed around
  # 0.5 s windows, Portkey's rounds scattered 0.14 (log sd) within a
  # start, 0.07 with 3 s windows, 0.036 unfrozen (results/gate/design/)
  duration        = "3s"
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

gateway "portkey" {
  compose = "../compose/gate-portkey.yaml"
  service = "portkey"
  port    = 18184
  api     = ["openai"]
  version = "@portkey-ai/gateway 1.15.2, Node.js 20, the plant preload with no work"
  prepare = ["../gateways/portkey/prepare.sh"]
  warmup_requests = 30000
  warmup_clients  = 1
  warmup_max      = "3m"
  headers = {
    "x-portkey-provider"    = "openai"
    "x-portkey-custom-host" = "${mock.url}/v1"
  }
}

gateway "portkey-copy" {
  compose = "../compose/gate-portkey.yaml"
  service = "portkey-copy"
  port    = 18185
  api     = ["openai"]
  version = "the same image and settings as portkey (A/A)"
  prepare = ["../gateways/portkey/prepare.sh"]
  warmup_requests = 30000
  warmup_clients  = 1
  warmup_max      = "3m"
  headers = {
    "x-portkey-provider"    = "openai"
    "x-portkey-custom-host" = "${mock.url}/v1"
  }
}

gateway "portkey-10" {
  compose = "../compose/gate-portkey.yaml"
  service = "portkey-10"
  port    = 18186
  api     = ["openai"]
  version = "portkey with the plant preload doing 95,000 rounds of work per request (about 10% of what it adds here)"
  prepare = ["../gateways/portkey/prepare.sh"]
  warmup_requests = 30000
  warmup_clients  = 1
  warmup_max      = "3m"
  headers = {
    "x-portkey-provider"    = "openai"
    "x-portkey-custom-host" = "${mock.url}/v1"
  }
}

# 8 fresh starts of the three arms (the gate's interval is over
# starts: each is a new process of every build; 4 left Portkey's A/A
# pair erratic in 9 of 10 runs, 6 starts wanted for 5%; from 8 the gate
# sets one start aside at each end, so a stray process does not widen it),
# three rounds in each, one client, whole JSON answers from a mock that
# answers at once.
# Warmed at that one client: Portkey serves it faster than 32, so a start
# costs less (results/gate/design/portkey-4x2-c32/).
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
