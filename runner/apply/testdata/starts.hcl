# Every level a real run has, small: two scenarios sharing nginx's kept
# stack (frozen between them), two starts each (the second on stacks and a
# mock of its own), run with --repeat 2. Every row of every start must be ok:
# the second start once checked the first start's removed mock and failed.
defaults {
  allow_host_paths = ["../../.."]
  trials          = 2
  starts          = 2
  warmup          = "200ms"
  duration        = "500ms"
  settle          = "100ms"
  warmup_requests = 100
  isolation       = "freeze"
  stacks          = "kept"
}

cpus {
  driver  = "0"
  mock    = "0"
  gateway = "1"
}

memory {
  mock    = "256MiB"
  gateway = "64MiB"
}

mock {
  port = 28160
  ttft = "0s"
  itl  = "2ms"
  output_tokens = 8
}

gateway "nginx" {
  compose = "../../../compose/nginx.yaml"
  service = "nginx"
  port    = 28161
  api     = ["openai"]
  prepare = ["../../../gateways/nginx/prepare.sh"]
}

scenario "overhead" {
  kind        = "overhead"
  concurrency = [1]
}

scenario "streaming_turn" {
  kind        = "overhead"
  stream      = true
  concurrency = [1]
}
