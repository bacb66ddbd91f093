# The regression gate's validation on a Go AI gateway, one-api v0.6.10 with
# its tuned settings (results/gate/README.md, issue 62). one-api has no hook
# for code of ours, so the planted slowdown sits beside it: each arm is
# one-api behind our Go relay (compose/gate-relay.yaml), the relay doing
# no work in the A/A pair and about 10% of what the arm adds in the planted
# one.
#
#   go run ./runner apply examples/gate-one-api.hcl --results results/gate/one-api/runs/1
#   go run ./runner compare --baseline one-api --candidate one-api-copy results/gate/one-api/runs/1
#
# scripts/gate-validation.sh one-api N makes N runs and the tallies.
defaults {
  allow_host_paths = [".."]
  trials          = 2 # rounds per start, each arm once in a fresh random order
  warmup          = "250ms"
  # 1.5 s windows with the idle arms left running: one-api's rounds
  # within a start scatter less than its starts (0.03 against 0.07 ms in
  # the 4x2 3 s pilot, design/one-api-4x2-3s-3000/), so the minutes go to
  # starts; about 800 requests a second still gives 1,100 samples a window
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

gateway "one-api" {
  compose = "../compose/gate-one-api.yaml"
  service = "one-api"
  port    = 18190
  api     = ["openai"]
  api_key = "sk-gatewaybench"
  version = "one-api v0.6.10 (tuned settings) behind refgw-go doing no work"
  prepare = ["../gateways/one-api/prepare.sh"]
  warmup_requests = 3000
  warmup_max      = "90s"
  replicas = 1
  balancer {
    compose = "../compose/gate-relay.yaml"
    service = "relay"
    prepare = ["../gateways/reference/prepare.sh"] # refgw-go's build context
    port    = 18200
  }
}

gateway "one-api-copy" {
  compose = "../compose/gate-one-api.yaml"
  service = "one-api"
  port    = 18191
  api     = ["openai"]
  api_key = "sk-gatewaybench"
  version = "the same images and settings as one-api (A/A)"
  prepare = ["../gateways/one-api/prepare.sh"]
  warmup_requests = 3000
  warmup_max      = "90s"
  replicas = 1
  balancer {
    compose = "../compose/gate-relay.yaml"
    service = "relay"
    prepare = ["../gateways/reference/prepare.sh"] # refgw-go's build context
    port    = 18201
  }
}

gateway "one-api-10" {
  compose = "../compose/gate-one-api.yaml"
  service = "one-api"
  port    = 18192
  api     = ["openai"]
  api_key = "sk-gatewaybench"
  version = "one-api behind refgw-go doing 40,000 rounds of work per request (about 10% of what the arm adds here: 60,000 read 1.135 and 1.165 in the pilots, design/)"
  prepare = ["../gateways/one-api/prepare.sh"]
  warmup_requests = 3000
  warmup_max      = "90s"
  replicas = 1
  balancer {
    compose = "../compose/gate-relay.yaml"
    service = "relay-10"
    prepare = ["../gateways/reference/prepare.sh"] # refgw-go's build context
    port    = 18202
  }
}

# 12 fresh starts of the three arms (the gate's interval is over starts,
# each a new process of every build: 4 starts called its A/A pair erratic,
# 0.968 [0.855, 1.097], one start 12% above the others; 12 called it
# same, 1.006 [0.967, 1.046], in 9 min 13 s for the three arms), two
# rounds in each, one client, whole JSON answers from a mock that answers
# at once.
scenario "gate" {
  kind        = "overhead"
  starts      = 12
  api         = "openai"
  concurrency = [1]
  mock {
    ttft = "0s"
    itl  = "0s"
  }
}
