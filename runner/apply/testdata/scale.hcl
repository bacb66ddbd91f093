# Scale-out on two engines of one machine: the mock and nginx on a second
# Docker engine (reached over ssh, as a remote host would be), two drivers
# in containers on the first sharing each load point. TestApplyTwoEngines
# runs it so and again on one engine, and compares the results' shapes.
defaults {
  allow_host_paths = ["../../.."]
  trials   = 1
  warmup   = "200ms"
  duration = "600ms"
  settle   = "100ms"
}

engine "second" {
  # The test puts an ssh on PATH that runs `docker system dial-stdio`
  # against the second engine's socket.
  host = "ssh://gatewaybench@second-engine"
}

placement {
  driver  = "local"
  mock    = "second"
  gateway = "second"
}

driver {
  instances = 2
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
  port = 28280
  fallback_port = 28279
  ttft = "0s"
  itl  = "2ms"
  output_tokens = 8
}

gateway "nginx" {
  class   = "proxy"
  compose = "../../../compose/nginx.yaml"
  service = "nginx"
  port    = 28281
  api     = ["openai", "anthropic"]
  prepare = ["../../../gateways/nginx/prepare.sh"]
}

scenario "overhead" {
  kind        = "overhead"
  stream      = true
  concurrency = [1, 4]
}

scenario "open" {
  kind        = "throughput"
  rates       = [200]
  max_in_flight = 16
}

# Sessions travel to the driver containers as the profile's text.
scenario "session" {
  kind        = "session"
  api         = "anthropic"
  session     = "../../../scenarios/claude-code.json"
  concurrency = [2]
  mock {
    itl = "0s"
  }
}

# The long stream is held from the runner's process, the small turns from
# the driver containers.
scenario "head_of_line" {
  kind          = "head_of_line"
  stream        = true
  prompt_tokens = [100000]
  concurrency   = [2]
}
