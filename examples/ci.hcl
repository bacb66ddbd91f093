# A regression gate in a gateway's CI (docs/ci.md): the baseline build and
# the candidate build of one gateway, measured in the same randomized
# rounds, then judged by `runner compare`. Here the two builds are the Go
# reference gateway and the same with 10% more work per request
# (gateways/reference/README.md), so the gate has something to find; a
# gateway team points the two blocks at its own compose services (its main
# branch's image and the pull request's).
#
#   go run ./runner apply examples/ci.hcl --results gate-results
#   go run ./runner compare --baseline base --candidate candidate gate-results
defaults {
  allow_host_paths = [".."]
  trials          = 3 # rounds per start, each arm once in a fresh random order
  warmup          = "250ms"
  duration        = "500ms"
  settle          = "200ms"
  warmup_requests = 500
  warmup_max      = "30s"
  min_samples     = 100
  max_duration    = "5s"
}

cpus {
  driver  = "0"
  mock    = "1"
  gateway = "1"
}

mock {
  port = 18080
}

gateway "base" {
  compose = "../compose/reference.yaml"
  service = "ref-go"
  port    = 18181
  api     = ["openai"]
  version = "the baseline build (here: refgw-go, 740,000 rounds of work per request)"
  prepare = ["../gateways/reference/prepare.sh"]
}

gateway "candidate" {
  compose = "../compose/reference.yaml"
  service = "ref-go-10"
  port    = 18184
  api     = ["openai"]
  version = "the candidate build (here: refgw-go, 814,000 rounds: 10% more work)"
  prepare = ["../gateways/reference/prepare.sh"]
}

# Four fresh starts of both builds (the gate's interval is over starts),
# three rounds in each, one client, whole JSON answers from a mock that
# answers at once: what the gateway adds is all there is to see.
scenario "gate" {
  kind        = "overhead"
  starts      = 4
  api         = "openai"
  concurrency = [1]
  mock {
    ttft = "0s"
    itl  = "0s"
  }
}
