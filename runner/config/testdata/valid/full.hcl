defaults {
  allow_host_paths = ["../compose"]
  trials      = 2
  warmup      = "500ms"
  duration    = "3s"
  settle      = "0s"
  baseline_k  = 3
  results_dir = "out"
}

cpus {
  driver  = "0"
  mock    = "1"
  gateway = "2-3"
}

memory {
  driver  = "512MiB"
  mock    = "256m"
  gateway = "1GiB"
}

cost {
  usd_per_vcpu_hour = 0.05
  usd_per_gb_hour   = 0.01
}

mock {
  port          = 19000
  ttft          = "5ms"
  itl           = "2ms"
  output_tokens = 8
  delta_chars   = 3
  seed          = 7
}

gateway "proxy" {
  class   = "proxy"
  compose = "../compose/ok.yaml"
  service = "proxy"
  port    = 19001
  api     = ["openai", "anthropic"]
  paths   = { anthropic = "/anthropic/v1/messages" }
  headers = { "x-upstream" = "${mock.url}/v1", "x-provider" = "openai", "X-Auth-Token" = "tok-hidden" }
  api_headers = { anthropic = { "x-provider" = "anthropic" } }
  api_models = { anthropic = "claude-x" }
  api_key = "sk-test"
  version = "1.0"
}

gateway "proxy-tuned" {
  compose = "../compose/ok.yaml"
  service = "proxy"
  port    = 19002
  api     = ["openai"]
  arm     = "tuned"
}

scenario "overhead" {
  kind        = "overhead"
  concurrency = [1, 4]
  mock {
    ttft = "0s"
  }
}

scenario "stream_anthropic" {
  kind        = "streaming_turn"
  api         = "anthropic"
  stream      = true
  tools       = true
  concurrency = [2]
  trials      = 1
}

scenario "open" {
  kind          = "throughput"
  rates         = [100]
  arrival       = "poisson"
  max_in_flight = 32
  prompt_tokens = [10, 1000]
  gateways      = ["proxy"]
  mock {
    error_rate   = 0.25
    error_status = 429
    retry_after  = "2s"
  }
}
