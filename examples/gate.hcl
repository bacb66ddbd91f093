# The regression gate's validation (results/gate/README.md): two reference
# gateways, one in Go and one in Python (uvicorn, httpx), each declared four
# times and told apart by the CPU work it does per request: the baseline, an
# identical copy, 5% and 10% more work. One run gives, for each reference,
# an A/A comparison and two planted slowdowns, all in the same randomized
# rounds:
#
#   go run ./runner apply examples/gate.hcl --results results/gate/runs/1
#   go run ./runner compare --baseline ref-go --candidate ref-go-10 results/gate/runs/1
#
# scripts/gate-validation.sh makes the 20 runs and the committed summary.
defaults {
  allow_host_paths = [".."]
  # Four starts of three rounds: the gate's interval is over the starts
  # (t = 3.18 over 4), each round every arm once in a fresh random order.
  # A start costs about 35 s here (eight stacks up and warmed), a round 9 s:
  # in the first run the sd between starts was near 0, so a fourth start
  # narrows the interval more than more rounds would (results/gate/README.md).
  trials          = 3
  warmup          = "250ms"
  duration        = "500ms" # about 350 requests of the Go reference, 100 of the Python one
  settle          = "200ms"
  warmup_requests = 500
  warmup_max      = "30s"
  isolation       = "freeze"
  min_samples     = 100
  max_duration    = "5s"
}

cpus {
  driver  = "0"
  mock    = "1"
  gateway = "1"
}

memory {
  driver  = "1GiB"
  mock    = "1GiB"
  gateway = "1GiB"
}

mock {
  port = 18080
}

gateway "ref-go" {
  compose = "../compose/reference.yaml"
  service = "ref-go"
  class   = "proxy"
  port    = 18181
  api     = ["openai"]
  version = "refgw-go (this checkout, Go's net/http/httputil), 740,000 rounds of work per request"
  prepare = ["../gateways/reference/prepare.sh"]
}

gateway "ref-go-copy" {
  compose = "../compose/reference.yaml"
  service = "ref-go-copy"
  class   = "proxy"
  port    = 18182
  api     = ["openai"]
  version = "refgw-go, the same image and work as ref-go (A/A)"
  prepare = ["../gateways/reference/prepare.sh"]
}

gateway "ref-go-5" {
  compose = "../compose/reference.yaml"
  service = "ref-go-5"
  class   = "proxy"
  port    = 18183
  api     = ["openai"]
  version = "refgw-go, 777,000 rounds of work per request (5% more)"
  prepare = ["../gateways/reference/prepare.sh"]
}

gateway "ref-go-10" {
  compose = "../compose/reference.yaml"
  service = "ref-go-10"
  class   = "proxy"
  port    = 18184
  api     = ["openai"]
  version = "refgw-go, 814,000 rounds of work per request (10% more)"
  prepare = ["../gateways/reference/prepare.sh"]
}

gateway "ref-py" {
  compose = "../compose/reference.yaml"
  service = "ref-py"
  port    = 18185
  api     = ["openai"]
  version = "refgw-python (app.py, uvicorn 0.54.0, httpx 0.28.1, Python 3.11), 40,000 rounds of work per request"
  prepare = ["../gateways/reference/prepare.sh"]
}

gateway "ref-py-copy" {
  compose = "../compose/reference.yaml"
  service = "ref-py-copy"
  port    = 18186
  api     = ["openai"]
  version = "refgw-python, the same image and work as ref-py (A/A)"
  prepare = ["../gateways/reference/prepare.sh"]
}

gateway "ref-py-5" {
  compose = "../compose/reference.yaml"
  service = "ref-py-5"
  port    = 18187
  api     = ["openai"]
  version = "refgw-python, 42,000 rounds of work per request (5% more)"
  prepare = ["../gateways/reference/prepare.sh"]
}

gateway "ref-py-10" {
  compose = "../compose/reference.yaml"
  service = "ref-py-10"
  port    = 18188
  api     = ["openai"]
  version = "refgw-python, 44,000 rounds of work per request (10% more)"
  prepare = ["../gateways/reference/prepare.sh"]
}

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
